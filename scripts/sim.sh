#!/usr/bin/env bash
# The deploy simulation at length: scripts/sim.sh [N] [FIRST]
#
# Runs N seeded schedules (default 2000) of tests/it/deploy/sim/, from seed FIRST
# (default 1), in a release build: deploys of different builds against one in-memory
# store on a virtual clock, killed, paused and failed as each seed says, with the
# invariants checked after every step and after one clean deploy. `cargo test` runs 24
# and the regression seeds.
# A failing seed is printed with its schedule; replay it alone with
#   FOLIO_SIM_SEED=S cargo test --test it deploy::sim -- --nocapture
# FOLIO_SIM_VERBOSE=1 prints every schedule's outcome.
set -euo pipefail
N=${1:-2000}
FIRST=${2:-1}
cd "$(dirname "$0")/.."
FOLIO_SIM_SEEDS=$N FOLIO_SIM_FIRST=$FIRST \
  cargo test --release --test it deploy::sim::deploys -- --nocapture 2>&1 \
  | grep -vE '^(running|$)' | grep -vE 'filtered out; finished' || true
