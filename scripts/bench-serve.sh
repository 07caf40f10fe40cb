#!/usr/bin/env bash
# `folio serve` under load: scripts/bench-serve.sh [SECONDS] [CONNECTIONS]
#
# Copies the sample project (data/, folio.toml, with pages precompressed both ways) into a
# scratch folder on tmpfs, starts `folio serve` on a free loopback port and runs wrk
# against it, in this order and in one run:
#   1. one page, plain GETs (the baseline);
#   2. the same with the page's current ETag in If-None-Match (each answered 304);
#   3. the same with a stale tag (each answered 200 in full);
#   4. the same with Accept-Encoding: br (the brotli sibling);
#   5. random pages of every language and size (scripts/bench-serve.lua);
#   6. the same while the data file is rewritten every 0.5 s, so that serve reloads
#      throughout; the reloads are counted.
# Any answer that is not 2xx or 3xx, or any socket error, fails the run. Prints requests/s
# for each and the ratios to the baseline. wrk and the server share the machine: read the
# ratios, not the absolute figures. FOLIO=path runs another folio binary (an older build,
# to compare), else this tree's release build is built and run.
set -euo pipefail
SECS=${1:-10}
CONNS=${2:-32}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v wrk > /dev/null || { echo "bench-serve: wrk is not installed (apt install wrk)" >&2; exit 2; }
if [ -z "${FOLIO:-}" ]; then
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin folio
  FOLIO=$ROOT/target/release/folio
fi
BASE=/dev/shm
[ -d "$BASE" ] && [ -w "$BASE" ] || BASE=${TMPDIR:-/tmp}
WORK=$(mktemp -d "$BASE/folio-bench-serve.XXXXXX")
cleanup() {
  [ -n "${EDITOR_LOOP:-}" ] && kill "$EDITOR_LOOP" 2> /dev/null || true
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2> /dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cp -r "$ROOT/data" "$ROOT/folio.toml" "$WORK/"
printf '\n[output]\nprecompress = ["gzip", "br"]\n' >> "$WORK/folio.toml"
cd "$WORK"
mkfifo url.fifo
"$FOLIO" serve --port 0 > url.fifo 2> serve.log &
SERVER=$!
exec 3< url.fifo # keep the pipe open so serve never writes into a closed one
read -r URL <&3
cat <&3 > serve.out &
PAGE="${URL}api/en/attractions?page=2&per_page=10"
ETAG=$(curl -sI "$PAGE" | tr -d '\r' | awk -F': ' 'tolower($1) == "etag" {print $2}')
[ -n "$ETAG" ] || { echo "bench-serve: no ETag on $PAGE" >&2; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $ETAG" "$PAGE")" = 304 ] \
  || { echo "bench-serve: If-None-Match is not answered 304" >&2; exit 1; }

# rate URL [wrk args...] -> requests/s of one wrk run; fails on any error
rate() {
  local url=$1
  shift
  wrk -t2 "-c$CONNS" "-d${SECS}s" --latency "$@" "$url" > wrk.txt
  if grep -qE "Non-2xx or 3xx responses|Socket errors" wrk.txt; then
    cat wrk.txt >&2
    echo "bench-serve: errors under load (above)" >&2
    exit 1
  fi
  awk '/^Requests\/sec/ {print $2}' wrk.txt
}
plain=$(rate "$PAGE")
fresh=$(rate "$PAGE" -H "If-None-Match: $ETAG")
stale=$(rate "$PAGE" -H 'If-None-Match: "stale"')
brotli=$(rate "$PAGE" -H 'Accept-Encoding: br')
random=$(rate "${URL}api/" -s "$ROOT/scripts/bench-serve.lua")
# Every 0.5 s a record's name changes and changes back: serve reloads all along.
(
  original=$(cat data/attractions.csv)
  n=0
  while true; do
    n=$((n + 1))
    printf '%s\n' "${original/Eiffel Tower,/Eiffel Tower $n,}" > data/attractions.csv.tmp
    mv data/attractions.csv.tmp data/attractions.csv
    sleep 0.5
  done
) &
EDITOR_LOOP=$!
before=$(grep -cE 'reloaded|rebuilt' serve.out || true)
reloading=$(rate "${URL}api/" -s "$ROOT/scripts/bench-serve.lua")
kill "$EDITOR_LOOP"
EDITOR_LOOP=
sleep 1
reloads=$(($(grep -cE 'reloaded|rebuilt' serve.out || true) - before))
[ "$reloads" -gt 0 ] || { echo "bench-serve: serve did not reload under load" >&2; exit 1; }
if grep -q "^error" serve.log; then
  cat serve.log >&2
  echo "bench-serve: serve printed errors (above)" >&2
  exit 1
fi
bytes=$(curl -s "$PAGE" | wc -c)
echo "folio serve ($FOLIO), one page of $bytes bytes unless said, wrk -t2 -c$CONNS -d${SECS}s on 127.0.0.1:"
printf '%-52s %12s %8s\n' "requests" "req/s" "ratio"
row() { printf '%-52s %12.0f %7.2fx\n' "$1" "$2" "$(echo "$2 / $plain" | bc -l)"; }
row "GET (200, full body)" "$plain"
row "GET, If-None-Match current (304)" "$fresh"
row "GET, If-None-Match stale (200)" "$stale"
row "GET, Accept-Encoding: br (200, the .br sibling)" "$brotli"
row "GET random pages, languages and sizes" "$random"
row "the same, reloading every 0.5 s ($reloads reloads)" "$reloading"
echo "no answer but 2xx/3xx, no socket error"
