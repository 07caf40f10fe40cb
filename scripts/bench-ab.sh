#!/usr/bin/env bash
# Old against new: scripts/bench-ab.sh ROUNDS [PROJECT] -- FOLIO_BIN...
#
# Full builds of one project by each binary in turn, ROUNDS times, each round ending with
# the write floor (examples/floor.rs) of the output the last binary wrote; every run starts
# from an empty output/ after `sync` and half a second (the kernel frees a removed tree's
# inodes for a while after `rm`). Prints each binary's times and median, the floor's, and
# each median against the floor's. PROJECT defaults to the 100,000-record project that
# `scripts/bench.sh 100000 /dev/shm` leaves (run it once first). On a shared machine,
# binaries alternating in one run are steadier than any one table.
set -euo pipefail
ROUNDS=${1:?usage: scripts/bench-ab.sh ROUNDS [PROJECT] -- FOLIO_BIN...}
shift
PROJECT=/dev/shm/folio-bench-100000
if [ "${1:-}" != "--" ]; then PROJECT=${1:?a project folder}; shift; fi
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: scripts/bench-ab.sh ROUNDS [PROJECT] -- FOLIO_BIN..." >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --example floor
FLOOR=$ROOT/target/release/examples/floor
BINS=()
for b in "$@"; do BINS+=("$(realpath "$b")"); done
cd "$PROJECT"
[ -f folio.toml ] || { echo "$PROJECT has no folio.toml" >&2; exit 2; }
settle() { sync; sleep 0.5; }
declare -A T
for _ in $(seq "$ROUNDS"); do
  for b in "${BINS[@]}"; do
    rm -rf output; settle
    start=$(date +%s.%N)
    "$b" build > /dev/null
    end=$(date +%s.%N)
    T[$b]+="$(awk -v s="$start" -v e="$end" 'BEGIN {printf "%.3f", e - s}') "
  done
  rm -rf "$PROJECT/.floor"; settle
  T[floor]+="$("$FLOOR" output "$PROJECT/.floor" | cut -d' ' -f1) "
  rm -rf "$PROJECT/.floor"
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
floor=$(median <<< "${T[floor]}")
printf '%-40s %s median %s\n' floor "${T[floor]}" "$floor"
for b in "${BINS[@]}"; do
  m=$(median <<< "${T[$b]}")
  printf '%-40s %s median %s (%s x floor)\n' "$b" "${T[$b]}" "$m" \
    "$(awk -v a="$m" -v f="$floor" 'BEGIN {printf "%.2f", a / f}')"
done
