#!/usr/bin/env bash
# Interleavings: runs InterleavingTests with SCHEDULES seeded random schedules (default 100000;
# the suite runs 2,000 of a new seed each time) — cancels, cancelAll, shutdowns, timeouts,
# retries and redirects at random moments around requests of every style and verb, each judged
# for exactly one completion, no lost cancel and the server's count of sends. Prints the seed,
# a summary of outcomes, and one line per problem naming the index that replays it.
#
#   scripts/interleave.sh [SCHEDULES] [SEED]
#   INTERLEAVING_SEED=S INTERLEAVING_ONLY=I scripts/interleave.sh   replays schedule I of seed S
set -euo pipefail
cd "$(dirname "$0")/.."

export INTERLEAVING_SCHEDULES=${1:-${INTERLEAVING_SCHEDULES:-100000}}
if [ -n "${2:-}" ]; then export INTERLEAVING_SEED=$2; fi
scripts/ensure-system-packages.sh
. scripts/test-settings.sh
swift build --enable-all-traits --build-tests
exec swift test --enable-all-traits --skip-build --filter InterleavingTests
