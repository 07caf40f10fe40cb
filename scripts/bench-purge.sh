#!/usr/bin/env bash
# Purge plan benchmark: scripts/bench-purge.sh [COUNT...]   (default: 2000 16000 100000)
#
# A bucket writer forges folio's deploy record to owe CloudFront COUNT keys, each page 1
# of a made-up language of its own (every key its own variant: the fold's worst case).
# For each COUNT, on a folder store (`file://`) holding a deploy of 100 generated records
# (examples/gen.rs, seed 42, scripts/bench.toml):
#   - `folio deploy --dry-run --purge cloudfront:ID`, timed, against the same dry run
#     with nothing owed, measured in the same run (the ratio is the plan's cost);
#   - a real `folio deploy --purge cloudfront:ID` against a stand-in CloudFront on
#     loopback (python3, answers 201 to every invalidation and counts its paths): its
#     time, exit status, and the paths it was sent (what the distribution would bill).
# FOLIO_OLD=PATH times that folio's dry run too (e.g. one built at a commit before the
# linear fold: `git worktree add /tmp/old <commit> && cargo build --release`), at the
# counts up to OLD_MAX (default 16000: the quadratic fold takes minutes past it), and
# prints old/new.
# WORKDIR (default /dev/shm/folio-purge-bench) holds everything; it is removed first.
set -euo pipefail
shopt -s inherit_errexit
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(2000 16000 100000)
WORK=${WORKDIR:-/dev/shm/folio-purge-bench}
OLD=${FOLIO_OLD:-}
OLD_MAX=${OLD_MAX:-16000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin folio --example gen
FOLIO=$TARGET/release/folio
CDN=cloudfront:E2QWRUHAPOMQZL
rm -rf "$WORK"
mkdir -p "$WORK/p/data" "$WORK/store"
"$TARGET/release/examples/gen" 100 "$WORK/p/data/attractions.json" 42
cp "$ROOT/scripts/bench.toml" "$WORK/p/folio.toml"
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1
cd "$WORK/p"
"$FOLIO" build --quiet >/dev/null 2>&1 || "$FOLIO" build >/dev/null
TO="file://$WORK/store"
"$FOLIO" deploy --to "$TO" >/dev/null
cp "$WORK/store/.folio-deploy.json.gz" "$WORK/clean.json.gz"

# The stand-in CloudFront: 201 to every POST, each invalidation's paths counted in a file.
cat >"$WORK/cloudfront.py" <<'PY'
import http.server, re, sys
log = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        paths = re.findall(r"<Path>(.*?)</Path>", body)
        with open(log, "a") as f:
            f.write(" ".join(paths) + "\n")
        reply = ('<?xml version="1.0"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/">'
                 '<Id>IBENCH</Id><Status>InProgress</Status><CreateTime>2026-01-01T00:00:00Z</CreateTime>'
                 '<InvalidationBatch><Paths><Quantity>0</Quantity></Paths><CallerReference>r</CallerReference>'
                 '</InvalidationBatch></Invalidation>').encode()
        self.send_response(201)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 "$WORK/cloudfront.py" "$PORT" "$WORK/invalidations.log" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT))" 2>/dev/null; do sleep 0.1; done
export AWS_ENDPOINT_URL_CLOUDFRONT=http://127.0.0.1:$PORT

# The clean record, forged to owe the CDN COUNT keys (0: the record as the deploy left it).
forge() {
  python3 - "$WORK/clean.json.gz" "$WORK/store/.folio-deploy.json.gz" "$1" "$CDN" <<'PY'
import gzip, json, sys
src, dst, n, cdn = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
record = json.loads(gzip.decompress(open(src, "rb").read()))
if n:
    record["version"] = 4
    record.setdefault("owed", {})[cdn] = [f"api/x{i:06d}/attractions/10/1.json" for i in range(n)]
open(dst, "wb").write(gzip.compress(json.dumps(record).encode()))
PY
}

# Seconds a command takes (its output dropped), best of $2 runs.
best() {
  local runs=$1 best=
  shift
  for _ in $(seq "$runs"); do
    local s e t
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  echo "$best"
}

forge 0
base=$(best 3 "$FOLIO" deploy --to "$TO" --purge "$CDN" --dry-run)
printf 'baseline: dry run with nothing owed: %.3f s\n' "$base"
printf '%-8s %-10s %-10s %-9s %-10s %-6s %-8s %s\n' owed "dry (s)" "x base" "old (s)" "old/new" "exit" "paid" "deploy (s)"
for n in "${COUNTS[@]}"; do
  forge "$n"
  dry=$(best 3 "$FOLIO" deploy --to "$TO" --purge "$CDN" --dry-run)
  old=-; ratio=-
  if [ -n "$OLD" ] && [ "$n" -le "$OLD_MAX" ]; then
    old=$(best 1 "$OLD" deploy --to "$TO" --purge "$CDN" --dry-run)
    ratio=$(printf '%.0f' "$(echo "$old / $dry" | bc -l)")
    old=$(printf '%.2f' "$old")
  fi
  : >"$WORK/invalidations.log"
  s=$(date +%s.%N)
  set +e
  "$FOLIO" deploy --to "$TO" --purge "$CDN" >"$WORK/deploy-$n.out" 2>"$WORK/deploy-$n.err"
  code=$?
  set -e
  e=$(date +%s.%N)
  paid=$(awk '{ n += NF } END { print n + 0 }' "$WORK/invalidations.log")
  printf '%-8s %-10.3f %-10.1f %-9s %-10s %-6s %-8s %.3f\n' "$n" "$dry" "$(echo "$dry / $base" | bc -l)" \
    "$old" "$ratio" "$code" "$paid" "$(echo "$e - $s" | bc)"
done
