#!/usr/bin/env bash
# Regenerates the OpenAPI client the CurlBridgeOpenAPI tests use (Client.swift and the Types*.swift
# files in Tests/CurlBridgeOpenAPITests/Generated) from Tests/CurlBridgeOpenAPITests/openapi.yaml, with
# swift-openapi-generator 1.14.3 built in a throwaway package: the generated code is committed,
# so neither CI nor the package itself ever builds the generator.
#
#   scripts/generate-openapi.sh            # regenerate in place
#   scripts/generate-openapi.sh --check    # fail if the committed files are not what it generates
#
# The generator's build (a few minutes on two cores) is kept in $OPENAPI_GENERATOR_SCRATCH
# (default: /tmp/curlbridge-openapi-generator) for the next run.
set -euo pipefail

generator_version=1.14.3
root=$(cd "$(dirname "$0")/.." && pwd)
tests="$root/Tests/CurlBridgeOpenAPITests"
generated_dir="$tests/Generated"
scratch=${OPENAPI_GENERATOR_SCRATCH:-/tmp/curlbridge-openapi-generator}

check=false
case "${1:-}" in
    --check) check=true ;;
    "") ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

mkdir -p "$scratch/Sources/Placeholder"
cat > "$scratch/Package.swift" <<SWIFT
// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "curlbridge-openapi-generator",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "$generator_version")],
    targets: [.target(name: "Placeholder")]
)
SWIFT
: > "$scratch/Sources/Placeholder/Placeholder.swift"
swift build --package-path "$scratch" --product swift-openapi-generator >&2
generator="$(swift build --package-path "$scratch" --product swift-openapi-generator --show-bin-path)/swift-openapi-generator"

output=$(mktemp -d)
trap 'rm -rf "$output"' EXIT
"$generator" generate "$tests/openapi.yaml" \
    --mode types --mode client \
    --access-modifier internal \
    --naming-strategy idiomatic \
    --output-directory "$output" >&2

# The generator writes Client.swift and Types.swift, the latter split into Types+*.swift files.
generated() { (cd "$1" && ls Client.swift Types*.swift 2>/dev/null); }
if $check; then
    status=0
    if [ "$(generated "$output")" != "$(generated "$generated_dir")" ]; then
        echo "the generated files in $generated_dir differ from what the generator makes; run $0" >&2
        status=1
    fi
    for file in $(generated "$output"); do
        if ! cmp -s "$output/$file" "$generated_dir/$file"; then
            echo "$generated_dir/$file is not what the generator makes from openapi.yaml; run $0" >&2
            status=1
        fi
    done
    exit $status
fi
mkdir -p "$generated_dir"
for file in $(generated "$generated_dir"); do rm "$generated_dir/$file"; done
for file in $(generated "$output"); do cp "$output/$file" "$generated_dir/$file"; done
