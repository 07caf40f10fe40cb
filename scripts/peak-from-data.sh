#!/usr/bin/env bash
# Peak memory of a deploy from the data: scripts/peak-from-data.sh N [LANGUAGES] [WORKDIR]
#
# Generates N records (examples/gen.rs, seed 42, the project of scripts/bench.toml, with
# LANGUAGES languages: the first four are the generated ones, the others fall back to the
# default's values, as a catalog not yet translated does) and measures, with GNU time's
# maximum resident set size, one run each of:
#   - folio check (the listing in memory: what a deploy from the data may be held to);
#   - folio deploy --from-data into an empty bucket, a no-op, then one record changed;
#   - folio build, and folio deploy of that build into another empty bucket;
# against s3s-fs on 127.0.0.1 (`cargo install s3s-fs@0.14.1 --features binary --locked`),
# one server each. It prints each figure and the deploy's ratio to check's.
# WORKDIR defaults to /dev/shm. FOLIO_BIN=PATH measures that binary.
set -euo pipefail
N=${1:?usage: scripts/peak-from-data.sh N [LANGUAGES] [WORKDIR]}
LANGS=${2:-4}
WORK=${3:-/dev/shm/folio-peak-$N-$LANGS}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v s3s-fs >/dev/null || { echo "needs s3s-fs: cargo install s3s-fs@0.14.1 --features binary --locked" >&2; exit 2; }
# With FOLIO_BIN set and the generator built, nothing is built (a tree changed since the
# binary was made is not rebuilt under the measurement).
if [ -z "${FOLIO_BIN:-}" ] || [ ! -x "$ROOT/target/release/examples/gen" ]; then
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin folio --example gen
fi
FOLIO=${FOLIO_BIN:-$ROOT/target/release/folio}
rm -rf "$WORK" && mkdir -p "$WORK/p/data"
"$ROOT/target/release/examples/gen" "$N" "$WORK/p/data/attractions.json" 42
langs=$(python3 -c "
extra = ['es', 'it', 'pt', 'nl', 'sv', 'da', 'fi', 'pl', 'cs', 'ko', 'zh', 'th', 'vi', 'id', 'tr', 'el', 'hu', 'ro', 'uk', 'he']
print(', '.join('\"%s\"' % l for l in (['en', 'fr', 'de', 'ja'] + extra)[:$LANGS]))")
sed "s/^languages = .*/languages = [$langs]/" "$ROOT/scripts/bench.toml" > "$WORK/p/folio.toml"
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
server() { # NAME: a server on a folder of its own, its port in PORT (not in a subshell:
  # its pid must reach the trap that stops it)
  mkdir -p "$WORK/s3-$1/bench"
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  s3s-fs --host 127.0.0.1 --port "$PORT" --access-key "$AWS_ACCESS_KEY_ID" \
    --secret-key "$AWS_SECRET_ACCESS_KEY" "$WORK/s3-$1" >/dev/null 2>&1 &
  pids+=($!)
  until python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT))" 2>/dev/null; do sleep 0.1; done
}
peak() { # LABEL COMMAND... -> "label MB seconds"
  local label=$1 kb secs
  shift
  /usr/bin/time -o "$WORK/time" -f '%M %e' "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
  read -r kb secs < "$WORK/time"
  echo "$label $((kb / 1024)) $secs"
}
server data
data_port=$PORT
server built
built_port=$PORT
cd "$WORK/p"
results=()
results+=("$(peak check "$FOLIO" check)")
results+=("$(peak from-data-first "$FOLIO" deploy --from-data --to s3://bench --endpoint "http://127.0.0.1:$data_port")")
results+=("$(peak from-data-noop "$FOLIO" deploy --from-data --to s3://bench --endpoint "http://127.0.0.1:$data_port")")
python3 - data/attractions.json <<'PY'
import sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
open(p, "w", encoding="utf-8").write(s.replace('"en":"', '"en":"changed ', 1))
PY
results+=("$(peak from-data-change "$FOLIO" deploy --from-data --to s3://bench --endpoint "http://127.0.0.1:$data_port")")
results+=("$(peak build "$FOLIO" build --quiet)")
results+=("$(peak build-deploy "$FOLIO" deploy --to s3://bench --endpoint "http://127.0.0.1:$built_port")")
pages=$(find output -type f -not -path '*/.*' | wc -l)
bytes=$(du -sb --exclude='.*' output | cut -f1)
check_mb=$(echo "${results[0]}" | cut -d' ' -f2)
printf '\npeak memory: N=%s records, %s languages, %s files, %s bytes of output\n\n' "$N" "$LANGS" "$pages" "$bytes"
printf '| run | peak RSS | / check | wall |\n|---|---|---|---|\n'
for r in "${results[@]}"; do
  read -r label mb secs <<< "$r"
  printf '| %s | %s MB | %s | %s s |\n' "$label" "$mb" "$(awk -v a="$mb" -v b="$check_mb" 'BEGIN {printf "%.2fx", a / b}')" "$secs"
done
