#!/usr/bin/env bash
# The demo: the three client styles, each against the embedded loopback server (no network).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-system-packages.sh
swift build --product BlockingWorkers
swift build --product AsyncTasks
swift build --product LegacyCallbacks
for example in BlockingWorkers AsyncTasks LegacyCallbacks; do
    echo
    echo "=== $example"
    "$(swift build --show-bin-path)/$example"
done
