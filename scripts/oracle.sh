#!/usr/bin/env bash
# The input oracle at length: scripts/oracle.sh [N] [FIRST]
#
# Builds folio in release and runs N seeds (default 10000) of tests/oracle/oracle.py from
# seed FIRST (default 0), and the regression seeds: seeded projects in the shapes users'
# tools write, half of them damaged, read by Python's own csv and json; folio must publish
# what they read or name the problem (tests/oracle/README.md). Prints one line a failing
# seed, the failures by class, seeds per second and `N passed, M failed`; exits 1 if any
# seed failed. Replay one with its full report:
#   python3 tests/oracle/oracle.py --folio target/release/folio --seed S --keep /tmp/oracle
set -euo pipefail
N=${1:-10000}
FIRST=${2:-0}
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin folio
exec python3 tests/oracle/oracle.py --folio target/release/folio --brief \
  --seeds "$FIRST:$((FIRST + N))" --regressions tests/oracle/regressions.txt
