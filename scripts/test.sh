#!/usr/bin/env bash
# The tests: builds everything (the tests start the CurlBridgeProbe executable), fails on any
# compiler warning in this package's own code, then runs the whole suite against loopback servers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-system-packages.sh
. scripts/test-settings.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift build --enable-all-traits --build-tests 2>&1 | tee "$log"
if grep -E "^$(pwd)/(Sources|Tests|Examples)/.*: warning:" "$log"; then
    echo "error: the build has warnings (above)" >&2
    exit 1
fi
swift test --enable-all-traits --skip-build "$@"
