#!/usr/bin/env bash
# Fuzzes folio's loaders and config parser: scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Runs each cargo-fuzz target (fuzz/fuzz_targets: csv, json, jsonl, config) for SECONDS
# (default 60) on this machine's stable toolchain (libFuzzer without a sanitizer:
# `-s none`), starting from the committed seeds in fuzz/corpus/TARGET; what it finds goes
# to a scratch corpus, so the committed one stays small. Prints the executions and crashes
# of each target; a crash leaves its input in fuzz/artifacts/TARGET and fails the script.
# Needs `cargo install cargo-fuzz`.
set -euo pipefail
SECS=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(csv json jsonl config)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
command -v cargo-fuzz >/dev/null || { echo "cargo-fuzz is missing: cargo install cargo-fuzz" >&2; exit 2; }
cargo fuzz build -s none >/dev/null
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$SCRATCH/$t"
  log="$SCRATCH/$t.log"
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: one that takes 2 GB leaks.
  if cargo fuzz run -s none "$t" "$SCRATCH/$t" "fuzz/corpus/$t" -- \
      -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
    crashes=0
  else
    crashes=1
    status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  corpus=$(ls "$SCRATCH/$t" | wc -l)
  printf 'fuzz %-7s %3ss  %10s executions  %5s new corpus entries  %s crash(es)\n' "$t" "$SECS" "$runs" "$corpus" "$crashes"
  [ "$crashes" = 0 ] || tail -n 40 "$log"
done
exit $status
