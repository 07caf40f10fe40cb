#!/usr/bin/env bash
# A catalog larger than the machine's room for pages: scripts/bench-scale.sh [N] [LANGUAGES] [TMPFS_MB]
#
# N generated records (default 100,000; examples/gen.rs, seed 42) in LANGUAGES languages
# (default 20: the generated en, fr, de, ja and 16 more falling back to English's values),
# at sizes 10/20/50/100 with no siblings: about 5.5 GB of pages in 378,000 files at the
# defaults. The project lives on a tmpfs of TMPFS_MB (default 2048: smaller than the
# pages, larger than the data), mounted here for the run (root only); the store is s3s-fs
# (`cargo install s3s-fs@0.14.1 --features binary --locked`) on the project disk, under
# STORE_DIR (default /var/tmp/folio-scale-store).
#   1. folio deploy --from-data into an empty bucket: wall time, peak RSS (GNU time), the
#      requests the server logged, and what was written on the machine apart from the
#      store (the project tmpfs's use before and after, and every file system call of the
#      deploy traced with strace: each file it opened to write, created or removed);
#   2. folio build on the same tmpfs (it does not fit: the error is shown);
#   3. with BENCH_BUILD_DIR=DIR (a folder with room for the pages), folio build there and
#      folio deploy of it into a second empty bucket, for comparison.
# FOLIO_BIN=PATH runs that binary.
set -euo pipefail
N=${1:-100000}
LANGS=${2:-20}
TMPFS_MB=${3:-2048}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STORE=${STORE_DIR:-/var/tmp/folio-scale-store}
# A store left by an earlier run is not emptied here (deleting a million files stalls this
# disk): pick a new STORE_DIR, or empty it beforehand.
[ -e "$STORE" ] && { echo "$STORE exists: remove it first, or set STORE_DIR" >&2; exit 2; }
command -v s3s-fs >/dev/null || { echo "needs s3s-fs: cargo install s3s-fs@0.14.1 --features binary --locked" >&2; exit 2; }
# With FOLIO_BIN set and the generator built, nothing is built (a tree changed since the
# binary was made is not rebuilt under the measurement).
if [ -z "${FOLIO_BIN:-}" ] || [ ! -x "$ROOT/target/release/examples/gen" ]; then
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin folio --example gen
fi
FOLIO=${FOLIO_BIN:-$ROOT/target/release/folio}
MNT=$(mktemp -d /tmp/folio-scale-XXXXXX)
mount -t tmpfs -o size="${TMPFS_MB}m" folio-scale "$MNT"
# The script's own files (GNU time's, the commands' output) go beside the store, not where
# what folio writes is measured.
OWN=$STORE/own
mkdir -p "$OWN"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; umount "$MNT" 2>/dev/null || true; rmdir "$MNT" 2>/dev/null || true; }
trap cleanup EXIT
P=$MNT/p
mkdir -p "$P/data"
"$ROOT/target/release/examples/gen" "$N" "$P/data/attractions.json" 42
langs=$(python3 -c "
extra = ['es', 'it', 'pt', 'nl', 'sv', 'da', 'fi', 'pl', 'cs', 'ko', 'zh', 'th', 'vi', 'id', 'tr', 'el', 'hu', 'ro', 'uk', 'he']
print(', '.join('\"%s\"' % l for l in (['en', 'fr', 'de', 'ja'] + extra)[:$LANGS]))")
sed "s/^languages = .*/languages = [$langs]/" "$ROOT/scripts/bench.toml" > "$P/folio.toml"
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1
server() { # NAME: a server on its own folder of the project disk, requests logged, its
  # port in PORT (not in a subshell: its pid must reach the trap that stops it)
  mkdir -p "$STORE/$1/bench"
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  RUST_LOG=s3s::service=debug s3s-fs --host 127.0.0.1 --port "$PORT" --access-key "$AWS_ACCESS_KEY_ID" \
    --secret-key "$AWS_SECRET_ACCESS_KEY" "$STORE/$1" >"$STORE/$1.log" 2>&1 &
  pids+=($!)
  until python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT))" 2>/dev/null; do sleep 0.1; done
}
requests() { # LOG -> "list head get put delete"
  grep -o 's3s::service: req: Request { method: [A-Z]*, uri: /bench[/?][^ ,]*' "$1" |
    awk '{ m = $6; u = $8; sub(",", "", m)
           if (m == "GET" && u ~ /^\/[^\/?]*\?(.*&)?(list-type|prefix|delimiter)=/) l++; else if (m == "GET") g++
           else if (m == "HEAD") h++; else if (m == "DELETE" || (m == "POST" && u ~ /[?&]delete/)) d++
           else if (m == "PUT" || m == "POST") p++ }
         END { printf "%d list, %d head, %d get, %d put, %d delete", l, h, g, p, d }'
}
used() { # the bytes the project's tmpfs holds (the data, then whatever folio wrote there)
  df -B1 --output=used "$MNT" | tail -n 1 | tr -d ' '
}
writes() { # STRACE_LOG -> the files folio opened to write, created, renamed or removed
  grep -E 'open(at)?\(.*O_(WRONLY|RDWR|CREAT)|(mkdir|rename|unlink|link|symlink|truncate)(at|at2)?\(' "$1" |
    grep -v -e '= -1 ' -e '"/dev/null"' -e '"/proc/' || true
}
data_bytes=$(du -sb "$P/data" | cut -f1)
cd "$P"
/usr/bin/time -o "$OWN/time" -f '%e %M' "$FOLIO" check > /dev/null
read -r csecs ckb < "$OWN/time"
server from-data
port=$PORT
before=$(used)
# Every file system call of the deploy is traced (seccomp-bpf: the others run untraced, at
# full speed): what it opens to write, creates, renames or removes anywhere on the machine.
/usr/bin/time -o "$OWN/time" -f '%e %M' strace -f --seccomp-bpf -e trace=%file -o "$OWN/strace" \
  "$FOLIO" deploy --from-data --to s3://bench --endpoint "http://127.0.0.1:$port" > "$OWN/deploy.out"
after=$(used)
read -r secs kb < "$OWN/time"
sleep 1
printf '\nscale: N=%s records, %s languages, data %s bytes, project on a tmpfs of %s MB, store on %s\n\n' "$N" "$LANGS" "$data_bytes" "$TMPFS_MB" "$STORE"
echo "folio check: ${csecs} s, peak RSS $((ckb / 1024)) MB"
echo "deploy --from-data: $(cat "$OWN/deploy.out")"
echo "  wall ${secs} s, peak RSS $((kb / 1024)) MB ($(awk -v a="$kb" -v b="$ckb" 'BEGIN {printf "%.2f", a / b}')x check's); requests: $(requests "$STORE/from-data.log")"
echo "  the project's tmpfs: $((after - before)) bytes more after the deploy; files the deploy opened to write, created, renamed or removed: $(writes "$OWN/strace" | wc -l)"
writes "$OWN/strace" | head -n 5 | sed 's/^/    /'
objects=$(find "$STORE/from-data/bench" -type f -not -name '.*' -not -path '*/.s3s*' | wc -l)
echo "  objects in the bucket: $objects"
offset=$(stat -c %s "$STORE/from-data.log")
/usr/bin/time -o "$OWN/time" -f '%e %M' "$FOLIO" deploy --from-data --to s3://bench --endpoint "http://127.0.0.1:$port" > "$OWN/deploy.out"
read -r secs kb < "$OWN/time"
sleep 1
echo "deploy --from-data again (a no-op): ${secs} s, peak RSS $((kb / 1024)) MB; requests: $(tail -c +"$((offset + 1))" "$STORE/from-data.log" > "$OWN/tail.log"; requests "$OWN/tail.log")"
echo
echo "folio build on the same tmpfs:"
if /usr/bin/time -o "$OWN/time" -f '%e %M' "$FOLIO" build --quiet 2> "$OWN/build.err"; then
  read -r secs kb < "$OWN/time"
  echo "  built in ${secs} s, peak RSS $((kb / 1024)) MB (it fit)"
else
  echo "  failed: $(grep -m1 '^error' "$OWN/build.err")"
  echo "  tmpfs after the failed build: $(df -B1M --output=used "$MNT" | tail -n 1 | tr -d ' ') MB used (the previous output, none, is as it was)"
fi
rm -rf "$P/output"
if [ -n "${BENCH_BUILD_DIR:-}" ]; then
  B=$BENCH_BUILD_DIR/p
  rm -rf "$B" && mkdir -p "$B" && cp -r "$P/data" "$P/folio.toml" "$B/"
  server built
  port=$PORT
  cd "$B"
  /usr/bin/time -o "$OWN/time" -f '%e %M' "$FOLIO" build --quiet
  read -r bsecs bkb < "$OWN/time"
  /usr/bin/time -o "$OWN/time" -f '%e %M' "$FOLIO" deploy --to s3://bench --endpoint "http://127.0.0.1:$port" > "$OWN/deploy.out"
  read -r dsecs dkb < "$OWN/time"
  sleep 1
  echo
  echo "folio build && folio deploy in $BENCH_BUILD_DIR: output $(du -sb --exclude='.*' "$B/output" | cut -f1) bytes in $(find "$B/output" -type f -not -path '*/.*' | wc -l) files"
  echo "  build ${bsecs} s (peak RSS $((bkb / 1024)) MB), deploy ${dsecs} s (peak RSS $((dkb / 1024)) MB): $(cat "$OWN/deploy.out")"
  echo "  requests: $(requests "$STORE/built.log")"
  rm -rf "$B"
fi
