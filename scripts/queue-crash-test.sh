#!/usr/bin/env bash
# The download queue's crash proof: a child process downloads FILES files of SIZE bytes (default
# 4 × 256 MiB = 1 GiB) from the embedded test server through a DownloadQueue checkpointing every
# INTERVAL bytes (default 4 MiB); it is killed with SIGKILL at N random moments (default 100:
# drawn from the seed as a number of bytes into its download, so every kill lands while it
# downloads) and restarted each time, then run to the end. Prints every check and the figures:
# each file's SHA-256 against the resource's, the body bytes the server sent against the files'
# (the rest was fetched again), what each kill cost (re-fetched: served but never durable;
# discarded: partial-file bytes past the last checkpoint), kills before any byte, and the time.
# Exits non-zero if a file is missing or wrong, a download failed, a child crashed, or a kill
# discarded more than CONCURRENCY × INTERVAL + 1 MiB.
#
#   scripts/queue-crash-test.sh [N] [extra CurlBridgeStorm options, e.g. --seed 42]
#   FILES=4 SIZE=268435456 INTERVAL=4194304 CONCURRENCY=1   the defaults (CONCURRENCY: downloads at once)
#   CONFIGURATION=debug scripts/queue-crash-test.sh 10      a debug build (default: release)
set -euo pipefail
cd "$(dirname "$0")/.."

kills=${1:-100}
shift || true
configuration=${CONFIGURATION:-release}
scripts/ensure-system-packages.sh
swift build --enable-all-traits -c "$configuration" --product CurlBridgeStorm
storm="$(swift build --enable-all-traits -c "$configuration" --show-bin-path)/CurlBridgeStorm"
start=$(date +%s)
status=0
"$storm" queue-crash --kills "$kills" --files "${FILES:-4}" --size "${SIZE:-268435456}" \
    --interval "${INTERVAL:-4194304}" --concurrency "${CONCURRENCY:-1}" "$@" || status=$?
echo "queue-crash-test: $kills kills, $(( $(date +%s) - start )) s with the build check, exit status $status"
exit "$status"
