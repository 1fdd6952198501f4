#!/usr/bin/env bash
# The DocC documentation: builds the archives of CurlBridge (its catalog is
# Sources/CurlBridge/CurlBridge.docc) and of the other products' modules (CurlBridgeTelemetry,
# CurlBridgeTesting, CurlBridgeTestServer, CurlBridgeOpenAPI) with swift-docc-plugin, and fails on
# any DocC warning — a broken ``symbol`` link, a parameter documented wrongly or not at all — and on
# a code sample of the getting-started articles or the migration guide that the documentation tests
# (Tests/CurlBridgeTests/Documentation) do not run line for line.
#
#   scripts/docs.sh            archives in .build/plugins/Swift-DocC/outputs/*.doccarchive
#
# Preview with a local server (http://localhost:8080/documentation/curlbridge):
#   swift package --disable-sandbox preview-documentation --target CurlBridge
# No network: the plugin resolves like every other dependency of the package.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-system-packages.sh

catalog=Sources/CurlBridge/CurlBridge.docc
samples=Tests/CurlBridgeTests/Documentation

# Every line of a ```swift block of the checked articles must be a line (both trimmed) of the
# documentation tests, except blocks that open with a `// Before:` comment (the NSURLSession and
# AFNetworking code being replaced) and lines naming the reader's server, api.example.com, which
# the tests replace with the embedded one.
check_samples() {
    cat "$samples"/*.swift | awk '
        function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
        FNR == NR { have[trim($0)] = 1; next }
        FNR == 1 { inside = 0 }
        !inside && /^```swift[ \t]*$/ { inside = 1; first = 1; skip = 0; next }
        inside && /^```[ \t]*$/ { inside = 0; next }
        inside {
            line = trim($0)
            if (first) { first = 0; if (line ~ /^\/\/ Before:/) skip = 1 }
            if (skip || line == "" || line ~ /api\.example\.com/) next
            if (!(line in have)) {
                printf "%s:%d: error: this sample line is not in %s: %s\n", FILENAME, FNR, tests, line
                bad = 1
            }
            checked++
        }
        END {
            if (checked == 0) { print "error: no sample line was checked" > "/dev/stderr"; exit 1 }
            exit bad
        }' tests="$samples" - "$catalog"/GettingStarted*.md "$catalog"/MigratingFromNSURLSessionAndAFNetworking.md
}

check_samples

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift package --enable-all-traits generate-documentation --target CurlBridge --target CurlBridgeTelemetry --target CurlBridgeTesting \
    --target CurlBridgeTestServer --target CurlBridgeOpenAPI \
    --warnings-as-errors 2>&1 | tee "$log" || status=$?
# DocC's own diagnostics; SwiftPM's notes about dependencies' unhandled files are not ours.
if grep -E "^(warning|error): " "$log" | grep -vE "^warning: '[^']+': found [0-9]+ file\(s\) which are unhandled"; then
    echo "error: the documentation has warnings (above)" >&2
    exit 1
fi
exit "$status"
