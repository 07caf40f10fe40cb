#!/usr/bin/env bash
# `folio serve` under load: scripts/bench-serve.sh [SECONDS] [CONNECTIONS]
#
# Builds the sample data (data/) into a scratch folder on tmpfs, starts `folio serve` on a
# free loopback port and runs wrk against one page three ways, in this order and in one
# run: plain GETs (the baseline), GETs with the page's current ETag in If-None-Match (each
# answered 304), and GETs with a stale tag (each answered 200 in full, the header
# compared and refused). Prints requests/s for each and the ratios to the baseline.
# wrk and the server share the machine: read the ratios, not the absolute figures.
set -euo pipefail
SECS=${1:-10}
CONNS=${2:-32}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v wrk > /dev/null || { echo "bench-serve: wrk is not installed (apt install wrk)" >&2; exit 2; }
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin folio
BIN=$ROOT/target/release/folio
BASE=/dev/shm
[ -d "$BASE" ] && [ -w "$BASE" ] || BASE=${TMPDIR:-/tmp}
WORK=$(mktemp -d "$BASE/folio-bench-serve.XXXXXX")
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2> /dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cp -r "$ROOT/data" "$ROOT/folio.toml" "$WORK/"
cd "$WORK"
mkfifo url.fifo
"$BIN" serve --port 0 > url.fifo 2> serve.log &
SERVER=$!
read -r URL < url.fifo
exec 3< url.fifo # keep the pipe open so serve never writes into a closed one
PAGE="${URL}api/en/attractions?page=2&per_page=10"
ETAG=$(curl -sI "$PAGE" | tr -d '\r' | awk -F': ' 'tolower($1) == "etag" {print $2}')
[ -n "$ETAG" ] || { echo "bench-serve: no ETag on $PAGE" >&2; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $ETAG" "$PAGE")" = 304 ] \
  || { echo "bench-serve: If-None-Match is not answered 304" >&2; exit 1; }

# rate [HEADER] -> requests/s of one wrk run against $PAGE
rate() {
  local args=(-t2 "-c$CONNS" "-d${SECS}s" --latency)
  [ $# -gt 0 ] && args+=(-H "$1")
  wrk "${args[@]}" "$PAGE" > wrk.txt
  grep -q "Non-2xx or 3xx responses" wrk.txt && { cat wrk.txt >&2; exit 1; }
  awk '/^Requests\/sec/ {print $2}' wrk.txt
}
plain=$(rate)
fresh=$(rate "If-None-Match: $ETAG")
stale=$(rate 'If-None-Match: "stale"')
bytes=$(curl -s "$PAGE" | wc -c)
echo "folio serve, one page ($bytes bytes), wrk -t2 -c$CONNS -d${SECS}s on 127.0.0.1:"
printf '%-40s %12s %8s\n' "requests" "req/s" "ratio"
printf '%-40s %12.0f %8s\n' "GET (200, full body)" "$plain" "1.00x"
printf '%-40s %12.0f %7.2fx\n' "GET, If-None-Match current (304)" "$fresh" "$(echo "$fresh / $plain" | bc -l)"
printf '%-40s %12.0f %7.2fx\n' "GET, If-None-Match stale (200)" "$stale" "$(echo "$stale / $plain" | bc -l)"
