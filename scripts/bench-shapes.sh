#!/usr/bin/env bash
# Input shapes: scripts/bench-shapes.sh N [BASE]
#
# The same N records (examples/gen.rs, seed 42) in every shape users' tools write
# (examples/shapes.rs: one-line JSON, pretty JSON, an array with a record a line, JSON
# Lines, CSV, a spreadsheet's CSV in US and EU settings, TSV), each in its own project
# under BASE/folio-shapes-N (default BASE: /dev/shm, a tmpfs, so that the figures are CPU
# and not the disk). For each shape, in one run:
#   load        folio check: read, parse, resolve and validate every record
#   full build  folio build into an empty output/
# each the median of BENCH_RUNS (default 3) runs, the shapes taken in turn within a round.
# Prints one table with each shape's ratio to the fastest, and checks that every shape
# built the same bytes (the manifest aside, which fingerprints the input file).
# Whoever changes src/load/ runs it: `scripts/bench-shapes.sh 100000` (FOLIO_BIN=<binary>
# measures another build of folio, old against new).
set -euo pipefail
N=${1:?usage: scripts/bench-shapes.sh N [BASE]}
BASE=${2:-/dev/shm}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-3}
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin folio --example gen --example shapes
BIN=$ROOT/target/release
# FOLIO_BIN: another folio binary to measure (old and new in turn); the examples stay.
FOLIO=${FOLIO_BIN:-$BIN/folio}
WORK=$BASE/folio-shapes-$N
mkdir -p "$WORK"
if [ ! -f "$WORK/records.json" ]; then
  "$BIN/examples/gen" "$N" "$WORK/records.json.tmp" 42
  mv "$WORK/records.json.tmp" "$WORK/records.json"
fi
rm -rf "$WORK/files"
mapfile -t LINES < <("$BIN/examples/shapes" "$WORK/records.json" "$WORK/files")
NAMES=(); FILES=()
for line in "${LINES[@]}"; do
  FILES+=("${line##* }"); NAMES+=("${line% *}")
done
for f in "${FILES[@]}"; do
  p=$WORK/p-$f
  rm -rf "$p"; mkdir -p "$p/data"
  mv "$WORK/files/$f" "$p/data/$f"
  cat "$ROOT/scripts/bench-shapes.toml" "$WORK/files/$f.toml" > "$p/folio.toml"
done

# timed CMD... -> "wall rss_kb" of one run
timed() {
  /usr/bin/time -f '%e %M' -o "$WORK/time.txt" "$@" > /dev/null
  cat "$WORK/time.txt"
}
median() { sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }

# The digest of an output tree, its manifest aside: every file's path and sha256.
digest() {
  (cd "$1" && find . -type f ! -name .folio-manifest.json -print0 | sort -z | xargs -0 sha256sum) | sha256sum
}

# Each shape's output is removed once it is measured (its digest kept, in the last round):
# eight trees of 1.1 GB left on tmpfs would leave the kernel reclaiming memory for every
# later build, the later shapes slowed by the earlier ones.
declare -A LOAD BUILD RSS DIGEST
for f in "${FILES[@]}"; do LOAD[$f]=""; BUILD[$f]=""; rm -rf "$WORK/p-$f/output"; done
for round in $(seq "$RUNS"); do
  for f in "${FILES[@]}"; do
    p=$WORK/p-$f
    read -r w _ <<< "$(timed "$FOLIO" check --config "$p/folio.toml")"
    LOAD[$f]+="$w "
    sync
    read -r w m <<< "$(timed "$FOLIO" build --quiet --config "$p/folio.toml")"
    BUILD[$f]+="$w "; RSS[$f]=$m
    if [ "$round" = "$RUNS" ]; then
      DIGEST[$f]=$(digest "$p/output")
      files=$(find "$p/output" -type f | wc -l)
    fi
    rm -rf "$p/output"
  done
done

# Every shape built the same bytes.
first=${FILES[0]}
same=yes
for f in "${FILES[@]:1}"; do
  if [ "${DIGEST[$f]}" != "${DIGEST[$first]}" ]; then
    echo "DIFFERENT OUTPUT: $f and $first" >&2
    same=no
  fi
done

declare -A L B
best_l=""; best_b=""
for f in "${FILES[@]}"; do
  L[$f]=$(tr ' ' '\n' <<< "${LOAD[$f]}" | grep . | median)
  B[$f]=$(tr ' ' '\n' <<< "${BUILD[$f]}" | grep . | median)
  best_l=$(awk -v a="${L[$f]}" -v b="$best_l" 'BEGIN {print (b == "" || a < b) ? a : b}')
  best_b=$(awk -v a="${B[$f]}" -v b="$best_b" 'BEGIN {print (b == "" || a < b) ? a : b}')
done
printf '\nfolio shapes: N=%s on %s (%s), %s output files a shape, same output in every shape: %s\n' \
  "$N" "$BASE" "$(df --output=fstype "$WORK" | tail -1)" "$files" "$same"
row() { printf '| %-22s | %-14s | %8s | %6s | %8s | %7s | %7s | %7s |\n' "$@"; }
row shape file "input MB" "load s" "x best" "build s" "x best" "rss MB"
row ---------------------- -------------- -------- ------ -------- ------- ------- -------
for i in "${!FILES[@]}"; do
  f=${FILES[$i]}
  size=$(stat -c %s "$WORK/p-$f/data/$f")
  row "${NAMES[$i]}" "$f" "$(awk -v s="$size" 'BEGIN {printf "%.1f", s / 1e6}')" "${L[$f]}" \
    "$(awk -v a="${L[$f]}" -v b="$best_l" 'BEGIN {printf "%.2fx", a / b}')" "${B[$f]}" \
    "$(awk -v a="${B[$f]}" -v b="$best_b" 'BEGIN {printf "%.2fx", a / b}')" $((RSS[$f] / 1024))
done
[ "$same" = yes ]
