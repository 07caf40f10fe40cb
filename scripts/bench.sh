#!/usr/bin/env bash
# End-to-end benchmark: scripts/bench.sh N [WORKDIR]
#
# Builds N generated records (examples/gen.rs, seed 42) and prints one table: a full build,
# the floor (the same files written from memory, single-threaded, examples/floor.rs), a
# no-op rebuild, a rebuild after one record's text changed, and a build with gzip + br
# precompression. Each timed run is preceded by `sync`; full builds and the floor are the
# median of 3. Ratios compare against figures measured in this same run.
set -euo pipefail
N=${1:?usage: scripts/bench.sh N [WORKDIR]}
WORK=${2:-${TMPDIR:-/tmp}/folio-bench-$N}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin folio --example gen --example floor
BIN=$ROOT/target/release
mkdir -p "$WORK/data"
[ -f "$WORK/data/attractions.json" ] || "$BIN/examples/gen" "$N" "$WORK/data/attractions.json" 42
cp "$WORK/data/attractions.json" "$WORK/pristine.json"
config() {
  sed "s/^precompress = \[\]/precompress = [$1]/" "$ROOT/scripts/bench.toml" > "$WORK/folio.toml"
}
# timed CMD... -> "wall cpu rss_kb" of one run
timed() {
  sync
  /usr/bin/time -f '%e %U %S %M' -o "$WORK/time.txt" "$@" > "$WORK/last.txt"
  awk '{printf "%.2f %.2f %d\n", $1, $2 + $3, $4}' "$WORK/time.txt"
}
median() { sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }
cd "$WORK"
config ''
input=$(stat -c %s data/attractions.json)

full_runs=()
for _ in 1 2 3; do rm -rf output; full_runs+=("$(timed "$BIN/folio" build)"); done
full=$(printf '%s\n' "${full_runs[@]}" | median)
files=$(find output -type f | wc -l)
bytes=$(du -sb output | cut -f1)

floor_runs=()
for _ in 1 2 3; do rm -rf floor; sync; floor_runs+=("$("$BIN/examples/floor" output floor | cut -d' ' -f1)"); done
rm -rf floor
floor=$(printf '%s\n' "${floor_runs[@]}" | median)

noop=$(timed "$BIN/folio" build); noop_written=$(grep -o '[0-9]* files written' last.txt | cut -d' ' -f1)
# One record's text changed: the first record of the (shuffled) input file.
python3 - <<'PY'
import re
p = "data/attractions.json"
s = open(p, encoding="utf-8").read()
s = s.replace('"en":"', '"en":"changed ', 1)
open(p, "w", encoding="utf-8").write(s)
PY
one=$(timed "$BIN/folio" build); one_written=$(grep -o '[0-9]* files written' last.txt | cut -d' ' -f1)
cp pristine.json data/attractions.json

config '"gzip", "br"'
rm -rf output
comp=$(timed "$BIN/folio" build); comp_files=$(find output -type f | wc -l)
config ''

read -r fw fc fm <<< "$full"; read -r nw nc nm <<< "$noop"; read -r ow oc om <<< "$one"; read -r cw cc cm <<< "$comp"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
printf '\nfolio bench: N=%s, input %s bytes, output %s files, %s bytes\n' "$N" "$input" "$files" "$bytes"
printf '%-22s %8s %8s %10s %10s  %s\n' run wall_s cpu_s rss_MB files ratio
printf '%-22s %8s %8s %10s %10s  %s\n' "floor (write only)" "$floor" "-" "-" "$files" "1.00 x floor"
printf '%-22s %8s %8s %10d %10s  %s x floor, rss %s x input\n' "full build" "$fw" "$fc" $((fm / 1024)) "$files" "$(ratio "$fw" "$floor")" "$(ratio $((fm * 1024)) "$input")"
printf '%-22s %8s %8s %10d %10s  %s x full\n' "no-op rebuild" "$nw" "$nc" $((nm / 1024)) "$noop_written" "$(ratio "$nw" "$fw")"
printf '%-22s %8s %8s %10d %10s  %s x full\n' "one record changed" "$ow" "$oc" $((om / 1024)) "$one_written" "$(ratio "$ow" "$fw")"
printf '%-22s %8s %8s %10d %10s  %s x full\n' "precompressed (gz+br)" "$cw" "$cc" $((cm / 1024)) "$comp_files" "$(ratio "$cw" "$fw")"
