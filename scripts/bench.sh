#!/usr/bin/env bash
# End-to-end benchmark: scripts/bench.sh N [BASE...]
#
# Generates N records (examples/gen.rs, seed 42; the project of scripts/bench.toml: four
# languages, sizes 10/20/50/100) and, in BASE/folio-bench-N for each BASE (default: /dev/shm,
# a tmpfs, and target/ on the project's disk), prints one table measured in one run:
#   floor          the same files written from memory, one thread a core (examples/floor.rs),
#                  and on one thread; its stat floor: every file statted once, as a no-op does
#   full build     folio build into an empty output/
#   python peer    scripts/naive.py: the same job written the obvious way (BENCH_PYTHON=0 skips it)
#   no-op rebuild  folio build again, nothing changed
#   one record     folio build after one record's text changed
#   precompressed  folio build with precompress = ["gzip", "br"] into an empty output/
#   codec floor    its pages compressed by zlib and brotli's C library at folio's levels, one
#                  process a core (scripts/codec-floor.py); and the .br against the .gz bytes
# BENCH_INPUT lays the same records out as users' tools do: perline (default: an array with a
# record a line, as gen writes it), oneline (the whole array on one line, as json.dump and
# JSON.stringify write it) or jsonl (JSON Lines); converted as a stream, so that 1M fits.
# scripts/bench-shapes.sh compares every shape, CSV included, at one size.
# Then, up to 200,000 records, scripts/bench-shapes.sh N on the first BASE (BENCH_SHAPES=0
# skips it).
# BENCH_PRECOMPRESS=0 skips the precompressed build (at 1M records its output and the
# input do not fit a 24 GiB tmpfs together with folio's memory). Every timed run is
# preceded by `sync`; floor and full build are the median of BENCH_RUNS (default 3) runs,
# each round a build, then its floor on all cores, then on one thread.
# Ratios compare figures of the same run and the same filesystem.
set -euo pipefail
N=${1:?usage: scripts/bench.sh N [BASE...]}
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASES=("$@")
[ ${#BASES[@]} -gt 0 ] || BASES=(/dev/shm "$ROOT/target")
RUNS=${BENCH_RUNS:-3}
PYTHON=${BENCH_PYTHON:-1}
PRECOMPRESS=${BENCH_PRECOMPRESS:-1}
INPUT=${BENCH_INPUT:-perline}
case $INPUT in
  perline | oneline) FILE=attractions.json ;;
  jsonl) FILE=attractions.jsonl ;;
  *) echo "BENCH_INPUT is perline, oneline or jsonl" >&2; exit 2 ;;
esac
[ "$INPUT" = jsonl ] && PYTHON=0 # the peer reads one JSON array
# The Python with the brotli module, for the codec floor; folio's brotli quality.
PY=$ROOT/tests/.venv/bin/python3
[ -x "$PY" ] || PY=python3
QUALITY=$(sed -n 's/^pub const BROTLI_QUALITY: u8 = \([0-9]*\);/\1/p' "$ROOT/src/compress.rs")
WINDOW=$(sed -n 's/^pub const BROTLI_MAX_WINDOW: u8 = \([0-9]*\);/\1/p' "$ROOT/src/compress.rs")
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin folio --example gen --example floor
BIN=$ROOT/target/release
# FOLIO_BIN: another folio binary to measure (old and new alternating); the examples stay.
FOLIO=${FOLIO_BIN:-$BIN/folio}

# timed CMD... -> "wall cpu rss_kb" of one run (stdout of CMD in $WORK/last.txt). The
# kernel frees a removed tree's inodes for a while after `rm` returns (deferred work on
# both cores): each timed run waits BENCH_SETTLE seconds (default 1) first, as the floor's
# own reading of the tree lets it, so that a build does not pay for the last one's removal.
timed() {
  sync
  sleep "${BENCH_SETTLE:-1}"
  /usr/bin/time -f '%e %U %S %M' -o "$WORK/time.txt" "$@" > "$WORK/last.txt"
  awk '{printf "%.2f %.2f %d\n", $1, $2 + $3, $4}' "$WORK/time.txt"
}
median() { sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
config() {
  sed "s/^precompress = \[\]/precompress = [$1]/" "$ROOT/scripts/bench.toml" > "$WORK/folio.toml"
}

DATA=""
suite() {
  WORK=$1/folio-bench-$N
  mkdir -p "$WORK/data"
  if [ -z "$DATA" ]; then
    if [ ! -f "$WORK/data/$FILE" ]; then
      rm -f "$WORK"/data/attractions.*
      "$BIN/examples/gen" "$N" "$WORK/gen.json" 42
      # gen writes "[", a record a line each ending in ",", and "]".
      case $INPUT in
        perline) mv "$WORK/gen.json" "$WORK/data/$FILE" ;;
        oneline) tr -d '\n' < "$WORK/gen.json" > "$WORK/data/$FILE"; rm "$WORK/gen.json" ;;
        jsonl) sed '1d;$d;s/,$//' "$WORK/gen.json" > "$WORK/data/$FILE"; rm "$WORK/gen.json" ;;
      esac
    fi
    DATA=$WORK/data/$FILE
  elif [ ! -f "$WORK/data/$FILE" ]; then
    rm -f "$WORK"/data/attractions.*
    cp "$DATA" "$WORK/data/$FILE"
  fi
  cd "$WORK"
  cp "data/$FILE" pristine.json
  config ''
  local input fs full_runs floor_runs floor1_runs stat_runs full floor floor1 stat files bytes py noop one comp
  local codec="-" gz_bytes=0 br_bytes=0
  input=$(stat -c %s "data/$FILE")
  fs=$(df --output=fstype . | tail -1)

  # Interleaved, so that the build and its floor meet the filesystem in the same state:
  # each run starts right after a tree of the same size was removed.
  full_runs=(); floor_runs=(); floor1_runs=(); stat_runs=()
  local line
  for _ in $(seq "$RUNS"); do
    rm -rf output
    full_runs+=("$(timed "$FOLIO" build)")
    rm -rf floor; sync
    line=$("$BIN/examples/floor" output floor)
    floor_runs+=("$(cut -d' ' -f1 <<< "$line")"); stat_runs+=("$(cut -d' ' -f4 <<< "$line")")
    rm -rf floor; sync
    floor1_runs+=("$("$BIN/examples/floor" output floor 1 | cut -d' ' -f1)")
    rm -rf floor
  done
  full=$(printf '%s\n' "${full_runs[@]}" | median)
  files=$(find output -type f | wc -l)
  bytes=$(du -sb output | cut -f1)
  floor=$(printf '%s\n' "${floor_runs[@]}" | median)
  floor1=$(printf '%s\n' "${floor1_runs[@]}" | median)
  stat=$(printf '%s\n' "${stat_runs[@]}" | median)

  py="- - 0"
  if [ "$PYTHON" != 0 ]; then
    rm -rf py-out
    py=$(timed python3 "$ROOT/scripts/naive.py" "data/$FILE" py-out)
    rm -rf py-out
  fi

  noop=$(timed "$FOLIO" build)
  local noop_written one_written comp_files
  noop_written=$(grep -o '[0-9]* files written' last.txt | cut -d' ' -f1)
  # One record's text changed: the first record of the (shuffled) input file. Streamed:
  # at 1M records a whole copy of the input in memory does not fit beside a tmpfs output.
  python3 - <<'PY'
import os, shutil
import glob
p = glob.glob("data/attractions.json*")[0]
with open(p, "rb") as src, open(p + ".tmp", "wb") as out:
    head = src.read(1 << 20)
    assert b'"en":"' in head
    out.write(head.replace(b'"en":"', b'"en":"changed ', 1))
    shutil.copyfileobj(src, out, 1 << 20)
os.replace(p + ".tmp", p)
PY
  one=$(timed "$FOLIO" build)
  one_written=$(grep -o '[0-9]* files written' last.txt | cut -d' ' -f1)
  cp pristine.json "data/$FILE"

  comp="- - 0"; comp_files=0
  if [ "$PRECOMPRESS" != 0 ]; then
    config '"gzip", "br"'
    rm -rf output
    comp=$(timed "$FOLIO" build)
    comp_files=$(find output -type f | wc -l)
    gz_bytes=$(find output -name '*.gz' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    br_bytes=$(find output -name '*.br' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    # The codec floor: the same pages compressed by zlib and brotli's C library, one
    # process a core (scripts/codec-floor.py; its brotli module is in tests/.venv).
    if "$PY" -c 'import brotli' 2>/dev/null; then
      codec=$("$PY" "$ROOT/scripts/codec-floor.py" output "$QUALITY" "$WINDOW" | cut -d' ' -f1)
    else
      echo "bench: codec floor skipped: no brotli module for $PY (pip install brotli)" >&2
    fi
    config ''
  fi
  rm -rf output

  local fw fc fm pw pc pm nw nc nm ow oc om cw cc cm
  read -r fw fc fm <<< "$full"; read -r pw pc pm <<< "$py"; read -r nw nc nm <<< "$noop"
  read -r ow oc om <<< "$one"; read -r cw cc cm <<< "$comp"
  printf '\nfolio bench: N=%s on %s (%s), input %s bytes (%s), output %s files, %s bytes\n' \
    "$N" "$1" "$fs" "$input" "$INPUT" "$files" "$bytes"
  printf '%-24s %8s %8s %8s %8s  %s\n' run wall_s cpu_s rss_MB files ratio
  printf '%-24s %8s %8s %8s %8s  %s\n' "floor (write only)" "$floor" "-" "-" "$files" "1.00 x floor"
  printf '%-24s %8s %8s %8s %8s  %s x floor\n' "floor, one thread" "$floor1" "-" "-" "$files" "$(ratio "$floor1" "$floor")"
  printf '%-24s %8s %8s %8s %8s  %s x full\n' "stat floor (no-op's)" "$stat" "-" "-" "$files" "$(ratio "$stat" "$fw")"
  printf '%-24s %8s %8s %8d %8s  %s x floor; rss %s x input\n' "full build" "$fw" "$fc" $((fm / 1024)) "$files" \
    "$(ratio "$fw" "$floor")" "$(ratio $((fm * 1024)) "$input")"
  if [ "$PYTHON" != 0 ]; then
    printf '%-24s %8s %8s %8d %8s  %s x floor; folio is %s x faster\n' "python peer" "$pw" "$pc" $((pm / 1024)) "-" \
      "$(ratio "$pw" "$floor")" "$(ratio "$pw" "$fw")"
  fi
  printf '%-24s %8s %8s %8d %8s  %s x full; %s x stat floor\n' "no-op rebuild" "$nw" "$nc" $((nm / 1024)) "$noop_written" \
    "$(ratio "$nw" "$fw")" "$(ratio "$nw" "$stat")"
  printf '%-24s %8s %8s %8d %8s  %s x full\n' "one record changed" "$ow" "$oc" $((om / 1024)) "$one_written" "$(ratio "$ow" "$fw")"
  if [ "$PRECOMPRESS" != 0 ]; then
    printf '%-24s %8s %8s %8d %8s  %s x full\n' "precompressed (gz+br)" "$cw" "$cc" $((cm / 1024)) "$comp_files" "$(ratio "$cw" "$fw")"
    if [ "$codec" != "-" ]; then
      printf '%-24s %8s %8s %8s %8s  precompressed is %s x (full + codec floor)\n' "codec floor (C, a core each)" "$codec" "-" "-" "-" \
        "$(ratio "$cw" "$(awk -v a="$fw" -v b="$codec" 'BEGIN {print a + b}')")"
    fi
    printf '.br siblings %s bytes, .gz %s bytes: .br is %s x .gz\n' "$br_bytes" "$gz_bytes" "$(ratio "$br_bytes" "$gz_bytes")"
  fi
  cd "$ROOT"
}

for base in "${BASES[@]}"; do suite "$base"; done

# Every input shape at this size, on the first filesystem (BENCH_SHAPES=0 skips it; past
# 200,000 records it is left out: eight copies of the input).
if [ "${BENCH_SHAPES:-1}" != 0 ] && [ "$N" -le 200000 ]; then
  "$ROOT/scripts/bench-shapes.sh" "$N" "${BASES[0]}"
fi
