#!/usr/bin/env bash
# The documentation: fails unless every ```swift block of README.md and of the DocC articles
# compiles, and builds the DocC archives.
#
# - Code blocks compile as methods of the article's samples type, declared with the names the
#   article assumes in Tests/DocumentationSamples/Articles/<Name>.swift (the OpenAPI articles:
#   Tests/CurlBridgeOpenAPITests/Articles, against the client generated there). The
#   ExtractDocumentationSamples plugin makes them sources of those targets, so every test build
#   compiles them too; a diagnostic names the article's line. A warning in a sample fails, and a
#   deprecated call is an error.
# - Blocks that open with `// Package.swift` are evaluated inside a Package(…) by
#   `swift package dump-package`; blocks that open with `// Before: …` show another library's
#   code (NSURLSession's Apple-only API, AFNetworking) and are counted, not compiled.
# - The getting-started articles' and the migration guide's lines must also be lines of the
#   documentation tests (Tests/CurlBridgeTests/Documentation), which run them.
# - The archives of CurlBridge and of the other products' modules (CurlBridgeTelemetry,
#   CurlBridgeTesting, CurlBridgeTestServer, CurlBridgeOpenAPI), with swift-docc-plugin, fail on
#   any DocC warning: a broken ``symbol`` link, a parameter documented wrongly or not at all.
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

log=$(mktemp)
manifests=$(mktemp -d)
trap 'rm -rf "$log" "$manifests"' EXIT
mapfile -t articles < <(echo README.md; find Sources -path '*.docc/*' -name '*.md' | sort)

# Every article with code to compile has its samples context.
swift build --enable-all-traits --product DocumentationSampleExtractor
extractor="$(swift build --enable-all-traits --show-bin-path)/DocumentationSampleExtractor"
summary=$("$extractor" --summary "${articles[@]}")
echo "$summary"
missing=0
while read -r path code; do
    name=$(basename "$path" .md)
    if [ "$code" -gt 0 ] && ! ls Tests/*/Articles/"$name".swift >/dev/null 2>&1; then
        echo "error: $path has $code Swift blocks to compile but no Tests/*/Articles/$name.swift" >&2
        missing=1
    fi
done < <(echo "$summary" | sed -nE 's/^(.+\.md): ([0-9]+) compiled.*/\1 \2/p')
[ "$missing" = 0 ]

# The code blocks, in the two targets that compile them.
for target in DocumentationSamples CurlBridgeOpenAPITests; do
    swift build --enable-all-traits --target "$target" 2>&1 | tee "$log"
    if grep -E "\.md:[0-9]+:[0-9]+: (warning|error):" "$log"; then
        echo "error: a Swift block of the documentation does not compile cleanly (above)" >&2
        exit 1
    fi
done

# The manifest blocks.
"$extractor" --manifests "$manifests" "${articles[@]}"
for manifest in "$manifests"/*/Package.swift; do
    if ! swift package --package-path "$(dirname "$manifest")" dump-package >/dev/null; then
        echo "error: this manifest block does not evaluate: $(sed -n 2p "$manifest")" >&2
        exit 1
    fi
done
echo "$(ls "$manifests" | wc -l) manifest blocks evaluate"

check_samples

status=0
swift package --enable-all-traits generate-documentation --target CurlBridge --target CurlBridgeTelemetry --target CurlBridgeTesting \
    --target CurlBridgeTestServer --target CurlBridgeOpenAPI --target CurlBridgeFoundation \
    --warnings-as-errors 2>&1 | tee "$log" || status=$?
# DocC's own diagnostics; SwiftPM's notes about dependencies' unhandled files are not ours.
if grep -E "^(warning|error): " "$log" | grep -vE "^warning: '[^']+': found [0-9]+ file\(s\) which are unhandled"; then
    echo "error: the documentation has warnings (above)" >&2
    exit 1
fi
exit "$status"
