#!/usr/bin/env bash
# Deploy benchmark: scripts/bench-deploy.sh N [WORKDIR]
#
# Builds N generated records (examples/gen.rs, seed 42, the config of scripts/bench.sh) and
# publishes them to a local S3 server on 127.0.0.1 (s3s-fs, a Rust S3 server on a folder:
# `cargo install s3s-fs@0.14.1 --features binary --locked`), with `folio deploy` and with
# `aws s3 sync` (PyPI `awscli`) into two buckets of the same server, in one run:
#   1. the first deploy into an empty bucket (objects per second);
#   2. a no-op after a fresh clone: the same sources built again in a new folder (new
#      mtimes, same bytes), then each tool run again (what each uploads);
#   3. one record's text changed, rebuilt, each tool run again.
# WORKDIR defaults to /dev/shm (tmpfs), so the disk does not stand between the tools.
set -euo pipefail
N=${1:?usage: scripts/bench-deploy.sh N [WORKDIR]}
WORK=${2:-/dev/shm/folio-deploy-bench-$N}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v s3s-fs >/dev/null || { echo "needs s3s-fs: cargo install s3s-fs@0.14.1 --features binary --locked" >&2; exit 2; }
command -v aws >/dev/null || { echo "needs aws: pip install awscli" >&2; exit 2; }
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin folio --example gen
BIN=$ROOT/target/release
rm -rf "$WORK"
mkdir -p "$WORK/a/data" "$WORK/s3/folio" "$WORK/s3/awscli"
"$BIN/examples/gen" "$N" "$WORK/a/data/attractions.json" 42
cp "$ROOT/scripts/bench.toml" "$WORK/a/folio.toml"
[listing]
languages = ["en", "fr", "de", "ja"]
page_sizes = [10, 20, 50, 100]
[fields.name]
localized = true
[fields.description]
localized = true
[hosting]
targets = []
TOML
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1
s3s-fs --host 127.0.0.1 --port "$PORT" --access-key "$AWS_ACCESS_KEY_ID" --secret-key "$AWS_SECRET_ACCESS_KEY" "$WORK/s3" >"$WORK/s3s.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
sleep 1
EP=http://127.0.0.1:$PORT

(cd "$WORK/a" && "$BIN/folio" build --quiet)
objects=$(find "$WORK/a/output" -type f -not -path '*/.*' | wc -l)

# folio deploy DIR -> "seconds uploaded"
folio_deploy() {
  local start end out
  start=$(date +%s.%N)
  out=$(cd "$1" && "$BIN/folio" deploy --to s3://folio --endpoint "$EP")
  end=$(date +%s.%N)
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}') $(echo "$out" | grep -o '[0-9]* uploaded' | cut -d' ' -f1)"
}
# aws s3 sync DIR -> "seconds uploaded" (hidden files left out, as folio does)
aws_sync() {
  local start end n
  start=$(date +%s.%N)
  n=$(aws --endpoint-url "$EP" s3 sync "$1/output" s3://awscli --no-progress --exclude '.*' --exclude '*/.*' | grep -c '^upload:' || true)
  end=$(date +%s.%N)
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}') $n"
}

read -r f1 fu1 <<< "$(folio_deploy "$WORK/a")"
read -r a1 au1 <<< "$(aws_sync "$WORK/a")"
# The floor of any incremental run: listing the bucket once (every page of 1,000 keys).
start=$(date +%s.%N)
listed=$(aws --endpoint-url "$EP" s3api list-objects-v2 --bucket folio --query 'length(Contents)')
list_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')

# A fresh clone: the same sources in a new folder, built again.
mkdir -p "$WORK/b"
cp -r "$WORK/a/data" "$WORK/a/folio.toml" "$WORK/b/"
(cd "$WORK/b" && "$BIN/folio" build --quiet)
read -r f2 fu2 <<< "$(folio_deploy "$WORK/b")"
read -r a2 au2 <<< "$(aws_sync "$WORK/b")"

# One record's text changed.
python3 - "$WORK/b/data/attractions.json" <<'PY'
import sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
open(p, "w", encoding="utf-8").write(s.replace('"en":"', '"en":"changed ', 1))
PY
(cd "$WORK/b" && "$BIN/folio" build --quiet)
read -r f3 fu3 <<< "$(folio_deploy "$WORK/b")"
read -r a3 au3 <<< "$(aws_sync "$WORK/b")"

rate() { awk -v n="$1" -v s="$2" 'BEGIN {printf "%.0f", n / s}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
printf '\nfolio deploy bench: N=%s, %s objects, s3s-fs on 127.0.0.1, work in %s\n' "$N" "$objects" "$WORK"
printf '%-32s %14s %14s %14s %14s\n' run "folio s" "folio objects" "aws sync s" "aws objects"
printf '%-32s %14s %14s %14s %14s\n' "first deploy" "$f1" "$fu1" "$a1" "$au1"
printf '%-32s %14s %14s %14s %14s\n' "no-op after a fresh clone" "$f2" "$fu2" "$a2" "$au2"
printf '%-32s %14s %14s %14s %14s\n' "one record changed" "$f3" "$fu3" "$a3" "$au3"
printf '%-32s %14s %14s\n' "listing the bucket alone" "$list_s" "$listed"
printf 'first deploy: folio %s objects/s, aws s3 sync %s objects/s (%s x); fresh-clone no-op: folio %s x the time of aws, %s x the listing\n' \
  "$(rate "$fu1" "$f1")" "$(rate "$au1" "$a1")" "$(ratio "$a1" "$f1")" "$(ratio "$f2" "$a2")" "$(ratio "$f2" "$list_s")"
