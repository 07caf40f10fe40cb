#!/usr/bin/env bash
# Deploy benchmark: scripts/bench-deploy.sh N [WORKDIR]
#
# Builds N generated records (examples/gen.rs, seed 42, the project of scripts/bench.toml)
# and publishes them to a local S3 server on 127.0.0.1 (s3s-fs, a Rust S3 server on a
# folder: `cargo install s3s-fs@0.14.1 --features binary --locked`), in one run, each tool
# to a server of its own (s3s-fs keeps two files of metadata an object in one flat folder,
# which grows slower as it fills: no tool pays for another's objects), with:
#   - folio deploy (of the build; each step's `folio build` is timed too);
#   - folio deploy --from-data (the data rendered in memory, no build; BENCH_FROM_DATA=0
#     leaves it out), compared with folio build + folio deploy of the same step;
#   - rclone sync at its best for this job (Debian `rclone`): --checksum (content, not
#     times), --no-update-modtime, 32 transfers and 32 checkers (rclone lists folder by
#     folder with a delimiter, many at once; --fast-list is left out: s3s-fs answers a
#     recursive listing's continuation with nothing);
#   - aws s3 sync (PyPI `awscli`; BENCH_AWS=0 leaves it out: it takes ten minutes at 100k).
# BENCH_RCLONE=0 leaves rclone out too (at 1M records each tool's store takes ~30 GB of
# disk with s3s-fs's metadata, more than one machine may have for three copies).
# Three steps, each tool after the other:
#   1. the first deploy into an empty bucket;
#   2. a no-op after a fresh build: the same sources built again in a new folder (new
#      mtimes, same bytes), as a CI job from a fresh clone does;
#   3. one record's text changed, rebuilt, published again;
#   4. a no-op again: each tool as it runs from then on (on s3s-fs, whose listings carry no
#      ETags, folio learns the objects' times on step 2, and trusts them from here on).
# Then the catalog-update step (BENCH_UPDATE=0 leaves it out), folio alone, for the
# standard envelope, the standard one with `totals = false` and `laravel-simple`
# (BENCH_VARIANTS="standard no-totals" picks some; standard is the ratios' base), each
# on a server of its own: the same sources published, then two updates, each rebuilt and
# published with --purge-list:
#   - 10 records inserted (new ids, so last in the id order), 10 deleted and 100 changed
#     (their English name), at seeded places;
#   - 10 inserted and 100 changed, none deleted (a catalog that only grows).
# It prints, per envelope and update, the objects written and deleted, the purge (objects,
# CloudFront paths, exact URLs) and the time, with the ratios to the standard envelope.
# Every request is counted at the server (s3s-fs logs each one at debug level, for every
# tool alike) and classed as list (a GET of the bucket with a prefix, a delimiter or
# list-type: ListObjects and ListObjectsV2), head, get, put or delete.
# WORKDIR defaults to /dev/shm (tmpfs), so the disk does not stand between the tools.
# FOLIO_BIN=PATH runs that folio binary instead of this tree's release build (to compare
# two versions of folio, run the script once with each, alternating).
set -euo pipefail
shopt -s inherit_errexit
N=${1:?usage: scripts/bench-deploy.sh N [WORKDIR]}
WORK=${2:-/dev/shm/folio-deploy-bench-$N}
AWS=${BENCH_AWS:-1}
UPDATE=${BENCH_UPDATE:-1}
RCLONE=${BENCH_RCLONE:-1}
FROM_DATA=${BENCH_FROM_DATA:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
need() { command -v "$1" >/dev/null || { echo "needs $1: $2" >&2; exit 2; }; }
need s3s-fs "cargo install s3s-fs@0.14.1 --features binary --locked"
[ "$RCLONE" = 0 ] || need rclone "apt-get install rclone"
[ "$AWS" = 0 ] || need aws "pip install awscli"
# With FOLIO_BIN set and the generator built, nothing is built (a tree changed since the
# binary was made is not rebuilt under the measurement).
if [ -z "${FOLIO_BIN:-}" ] || [ ! -x "$ROOT/target/release/examples/gen" ]; then
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin folio --example gen
fi
BIN=$ROOT/target/release
FOLIO=${FOLIO_BIN:-$BIN/folio}
rm -rf "$WORK"
mkdir -p "$WORK/a/data"
"$BIN/examples/gen" "$N" "$WORK/a/data/attractions.json" 42
cp "$ROOT/scripts/bench.toml" "$WORK/a/folio.toml"

export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1
declare -A PORTS SERVERS
trap 'kill "${SERVERS[@]}" 2>/dev/null || true' EXIT
# One server a tool, on a folder of its own, with its bucket `bench`; each request logged.
for tool in folio data rclone aws; do
  [ "$tool" = aws ] && [ "$AWS" = 0 ] && continue
  [ "$tool" = data ] && [ "$FROM_DATA" = 0 ] && continue
  [ "$tool" = rclone ] && [ "$RCLONE" = 0 ] && continue
  mkdir -p "$WORK/s3-$tool/bench"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  RUST_LOG=s3s::service=debug s3s-fs --host 127.0.0.1 --port "$port" \
    --access-key "$AWS_ACCESS_KEY_ID" --secret-key "$AWS_SECRET_ACCESS_KEY" "$WORK/s3-$tool" >"$WORK/s3s-$tool.log" 2>&1 &
  SERVERS[$tool]=$!
  PORTS[$tool]=$port
  until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null; do sleep 0.1; done
done
# rclone's remote `s3:` from the environment, no config file.
export RCLONE_CONFIG_S3_TYPE=s3 RCLONE_CONFIG_S3_PROVIDER=Other \
  RCLONE_CONFIG_S3_ENDPOINT=http://127.0.0.1:${PORTS[rclone]:-0} \
  RCLONE_CONFIG_S3_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID RCLONE_CONFIG_S3_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY \
  RCLONE_CONFIG_S3_REGION=us-east-1 RCLONE_CONFIG_S3_FORCE_PATH_STYLE=true

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}'; }
declare -A B
# build STEP DIR: folio build in DIR, timed as step STEP's build.
build() {
  local start
  start=$(now)
  (cd "$2" && "$FOLIO" build --quiet)
  B[$1]=$(since "$start")
}
build first "$WORK/a"
objects=$(find "$WORK/a/output" -type f -not -path '*/.*' | wc -l)
bytes=$(du -sb --exclude='.*' "$WORK/a/output" | cut -f1)

# The requests in TOOL's server log since byte OFFSET: "list head get put delete".
requests() {
  tail -c +"$(($2 + 1))" "$WORK/s3s-$1.log" | grep -o 's3s::service: req: Request { method: [A-Z]*, uri: /bench[/?][^ ,]*' |
    awk '{ m = $6; u = $8; sub(",", "", m)
           if (m == "GET" && u ~ /^\/[^\/?]*\?(.*&)?(list-type|prefix|delimiter)=/) l++; else if (m == "GET") g++
           else if (m == "HEAD") h++; else if (m == "DELETE" || (m == "POST" && u ~ /[?&]delete/)) d++
           else if (m == "PUT" || m == "POST") p++ }
         END { printf "%d %d %d %d %d", l, h, g, p, d }'
}
# run TOOL DIR -> "seconds written list head get put delete"
run() {
  local tool=$1 dir=$2 offset start written ep=http://127.0.0.1:${PORTS[$1]}
  offset=$(stat -c %s "$WORK/s3s-$tool.log")
  start=$(now)
  case $tool in
    folio) written=$(cd "$dir" && "$FOLIO" deploy --to s3://bench --endpoint "$ep" | grep -o '[0-9]* uploaded' | cut -d' ' -f1) ;;
    data) written=$(cd "$dir" && "$FOLIO" deploy --from-data --to s3://bench --endpoint "$ep" | grep -o '[0-9]* uploaded' | cut -d' ' -f1) ;;
    # (AWS_CA_BUNDLE, where a machine sets it, makes rclone refuse a plain-http endpoint.)
    rclone) env -u AWS_CA_BUNDLE rclone sync "$dir/output" s3:bench --checksum --no-update-modtime --transfers 32 --checkers 32 \
              --exclude '.*' --exclude '**/.*' --log-level ERROR ;;
    aws) aws --endpoint-url "$ep" s3 sync "$dir/output" s3://bench --no-progress --exclude '.*' --exclude '*/.*' >/dev/null ;;
  esac
  local secs
  secs=$(since "$start")
  sleep 0.5 # the server's log catches up
  read -r l h g p d <<< "$(requests "$tool" "$offset")"
  # rclone and aws write one object a PUT; folio says what it uploaded (its record and
  # lease are PUTs too).
  case $tool in folio | data) ;; *) written=$p ;; esac
  echo "$secs $written $l $h $g $p $d"
}

declare -A R
step() { # STEP DIR
  R[$1,folio]=$(run folio "$2")
  if [ "$FROM_DATA" != 0 ]; then R[$1,data]=$(run data "$2"); fi
  if [ "$RCLONE" != 0 ]; then R[$1,rclone]=$(run rclone "$2"); fi
  if [ "$AWS" != 0 ]; then R[$1,aws]=$(run aws "$2"); fi
}

step first "$WORK/a"
# A fresh clone: the same sources in a new folder, built again.
mkdir -p "$WORK/b"
cp -r "$WORK/a/data" "$WORK/a/folio.toml" "$WORK/b/"
build noop "$WORK/b"
# The first build is published; its folder is not needed any more (disk, at 1M records).
rm -rf "$WORK/a/output"
step noop "$WORK/b"
# One record's text changed.
python3 - "$WORK/b/data/attractions.json" <<'PY'
import sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
open(p, "w", encoding="utf-8").write(s.replace('"en":"', '"en":"changed ', 1))
PY
build change "$WORK/b"
step change "$WORK/b"
# A no-op build before the last step, as CI runs one.
build again "$WORK/b"
step again "$WORK/b"

cell() { # "secs written l h g p d" -> table cell
  read -r s w l h g p d <<< "$1"
  printf '%s s, %s written; %s list, %s head, %s get, %s put, %s delete' "$s" "$w" "$l" "$h" "$g" "$p" "$d"
}
ratio() { awk -v a="${1%% *}" -v b="${2%% *}" 'BEGIN {printf "%.2f", a / b}'; }
printf '\nfolio deploy bench: N=%s, %s objects, %s bytes, s3s-fs on 127.0.0.1 (a server a tool), work in %s\n\n' "$N" "$objects" "$bytes" "$WORK"
peers=()
[ "$RCLONE" = 0 ] || peers+=(rclone)
[ "$AWS" = 0 ] || peers+=(aws)
declare -A LABEL=([rclone]="rclone sync" [aws]="aws s3 sync")
head='| step | folio build | folio deploy |'; rule='|---|---|---|'
if [ "$FROM_DATA" != 0 ]; then head+=' folio deploy --from-data | from-data / (build + deploy) |'; rule+='---|---|'; fi
for t in "${peers[@]}"; do head+=" ${LABEL[$t]} | folio / $t |"; rule+='---|---|'; done
printf '%s\n%s\n' "$head" "$rule"
for st in first noop change again; do
  case $st in
    first) name="first deploy into an empty bucket" ;; noop) name="no-op after a fresh build" ;;
    change) name="one record changed" ;; again) name="no-op again" ;;
  esac
  row="| $name | ${B[$st]} s | $(cell "${R[$st,folio]}") |"
  if [ "$FROM_DATA" != 0 ]; then
    both=$(awk -v a="${B[$st]}" -v b="${R[$st,folio]%% *}" 'BEGIN {printf "%.2f", a + b}')
    row+=" $(cell "${R[$st,data]}") | $(ratio "${R[$st,data]}" "$both")x |"
  fi
  for t in "${peers[@]}"; do
    row+=" $(cell "${R[$st,$t]}") | $(ratio "${R[$st,folio]}" "${R[$st,$t]}")x |"
  done
  printf '%s\n' "$row"
done

[ "$UPDATE" = 0 ] && exit 0

# The catalog-update step: folio alone, an envelope at a time, each on its own server.
# update FILE SEED DELETES: inserts 10 records (new ids), deletes DELETES and changes 100,
# at places the seed picks.
update() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, random, sys
path, seed, deletes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
records = json.load(open(path, encoding="utf-8"))
for i in sorted(rng.sample(range(len(records)), deletes), reverse=True):
    del records[i]
for r in rng.sample(records, 100):
    r["name"]["en"] = "Updated " + r["name"]["en"]
top = max(r["id"] for r in records)
for n, r in enumerate(rng.sample(records, 10)):
    new = json.loads(json.dumps(r))
    new["id"] = top + 1 + n
    new["name"]["en"] = "New " + new["name"]["en"]
    records.append(new)
json.dump(records, open(path, "w", encoding="utf-8"), ensure_ascii=False)
PY
}
# publish DIR PORT -> "seconds uploaded deleted purged_objects cloudfront_paths urls"
publish() {
  local start out
  start=$(now)
  out=$(cd "$1" && "$FOLIO" deploy --to s3://bench/api --endpoint "http://127.0.0.1:$2" --purge-list purge.json)
  local secs
  secs=$(since "$start")
  local up del
  up=$(grep -o '[0-9]* uploaded' <<< "$out" | cut -d' ' -f1)
  del=$(grep -o '[0-9]* deleted' <<< "$out" | cut -d' ' -f1)
  echo "$secs $up $del $(jq '[(.objects | length), .cloudfront.Paths.Quantity, (.urls | length)] | join(" ")' -r "$1/purge.json")"
}
need jq "apt-get install jq"
declare -A U
read -r -a variants <<< "${BENCH_VARIANTS:-standard no-totals laravel-simple}"
declare -A EXTRA=([standard]="" [no-totals]="totals = false" [laravel-simple]='envelope = "laravel-simple"')
for v in "${variants[@]}"; do
  dir=$WORK/u-$v
  mkdir -p "$dir/s3/bench"
  cp -r "$WORK/a/data" "$dir/"
  sed "s/^\[listing\]$/[listing]\n${EXTRA[$v]//\//\\/}/" "$ROOT/scripts/bench.toml" > "$dir/folio.toml"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  s3s-fs --host 127.0.0.1 --port "$port" --access-key "$AWS_ACCESS_KEY_ID" \
    --secret-key "$AWS_SECRET_ACCESS_KEY" "$dir/s3" >"$dir/s3s.log" 2>&1 &
  SERVERS[u-$v]=$!
  until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null; do sleep 0.1; done
  (cd "$dir" && "$FOLIO" build --quiet)
  U[$v,pages]=$(find "$dir/output/api" -name '*.json' -path '*/attractions/*' | wc -l)
  publish "$dir" "$port" >/dev/null
  # Once more: on s3s-fs, whose listings carry no ETags, the second deploy learns each
  # object's time (a HEAD each), which vouches for it from then on, as in steps 2 and 4.
  publish "$dir" "$port" >/dev/null
  update "$dir/data/attractions.json" 39 10
  (cd "$dir" && "$FOLIO" build --quiet)
  U[$v,mixed]=$(publish "$dir" "$port")
  update "$dir/data/attractions.json" 40 0
  (cd "$dir" && "$FOLIO" build --quiet)
  U[$v,grow]=$(publish "$dir" "$port")
  kill "${SERVERS[u-$v]}" 2>/dev/null || true
  unset "SERVERS[u-$v]"
  rm -rf "$dir"
done
ucell() { # "secs up del objects paths urls"
  read -r s u d o c l <<< "$1"
  printf '%s written, %s deleted | %s objects: %s CloudFront paths, %s URLs | %s s' "$u" "$d" "$o" "$c" "$l" "$s"
}
uratio() { # field index, variant cell, standard cell
  awk -v i="$1" -v a="$2" -v b="$3" 'BEGIN {split(a, x, " "); split(b, y, " "); printf "%.3f", x[i] / y[i]}'
}
pages=""
for v in "${variants[@]}"; do pages+=" $v ${U[$v,pages]},"; done
printf '\ncatalog update: N=%s records; page files a build:%s\n\n' "$N" "${pages%,}"
printf '| update | envelope | objects | purge | time | written / standard | time / standard |\n|---|---|---|---|---|---|---|\n'
for up in mixed grow; do
  case $up in
    mixed) name="10 inserted, 10 deleted, 100 changed" ;; grow) name="10 inserted, 100 changed" ;;
  esac
  for v in "${variants[@]}"; do
    printf '| %s | %s | %s | %s | %s |\n' "$name" "$v" "$(ucell "${U[$v,$up]}")" \
      "$(uratio 2 "${U[$v,$up]}" "${U[standard,$up]}")" "$(uratio 1 "${U[$v,$up]}" "${U[standard,$up]}")"
  done
done
