#!/usr/bin/env bash
# The demo: the examples (the three client styles, streaming, resuming), each against the
# embedded loopback server (no network) and each checking what it shows; then cb's help.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-system-packages.sh
for example in BlockingWorkers AsyncTasks LegacyCallbacks PlayWhileDownloading ResumableDownloader cb; do
    swift build --enable-all-traits --product "$example"
done
for example in BlockingWorkers AsyncTasks LegacyCallbacks PlayWhileDownloading ResumableDownloader; do
    echo
    echo "=== $example"
    "$(swift build --enable-all-traits --show-bin-path)/$example"
done
echo
echo "=== cb (a curl-like tool: Examples/cb/README.md)"
"$(swift build --enable-all-traits --show-bin-path)/cb" --help
