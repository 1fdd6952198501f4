#!/usr/bin/env bash
# What a new app pays for depending on CurlBridge: makes an app in a temporary directory whose
# only dependency is the CurlBridge product (`.package(path:)` to this checkout, no traits),
# cold-builds it, runs it, and prints the build's seconds and the packages it resolved.
#
#   scripts/downstream-check.sh            fails unless exactly swift-http-types and swift-log
#                                          were resolved (the seconds are printed, not judged:
#                                          a busy machine is slower, and CI is busy), or when the
#                                          app's binary links full Foundation (issue 37)
#
# Issue 21 measured 172 s and 21 packages when the core pulled in swift-crypto and the test
# server's NIO; the target is under 30 s on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-system-packages.sh
repository=$(pwd)
app=$(mktemp -d)
trap 'rm -rf "$app"' EXIT

mkdir -p "$app/Sources/App"
cat > "$app/Package.swift" <<EOF
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "App",
    dependencies: [.package(name: "CurlBridge", path: "$repository")],
    targets: [
        .executableTarget(name: "App", dependencies: [.product(name: "CurlBridge", package: "CurlBridge")]),
    ]
)
EOF
cat > "$app/Sources/App/main.swift" <<'EOF'
import CurlBridge
import Dispatch

// One blocking request, from a thread of its own (the guard refuses the main thread), to a port
// where nothing listens: it shows that the app links libcurl and gets a precise error. It imports
// nothing of Foundation, so its binary shows what the core alone links.
let finished = DispatchSemaphore(value: 0)
DispatchQueue.global().async {
    do throws(RequestError) {
        _ = try BlockingClient(transport: Transport(configuration: Configuration())).send(.get("http://127.0.0.1:9/"))
        print("unexpected: a response from port 9")
    } catch {
        print("request failed as expected: \(error.code)")
    }
    finished.signal()
}
finished.wait()
EOF

start=$(date +%s%N)
swift build --package-path "$app" 2>&1 | tail -1
milliseconds=$(( ($(date +%s%N) - start) / 1000000 ))
"$app/.build/debug/App"
# Every package but CurlBridge itself (a path dependency's identity is its directory's name).
itself=$(basename "$repository" | tr '[:upper:]' '[:lower:]')
resolved=$(swift package --package-path "$app" show-dependencies --format flatlist | grep -vxF "$itself" | sort | tr '\n' ' ')
printf 'cold build: %d.%d s\nresolved: %s\n' $((milliseconds / 1000)) $((milliseconds % 1000 / 100)) "$resolved"
expected="swift-http-types swift-log "
if [ "$resolved" != "$expected" ]; then
    echo "error: the app resolved more than the core needs (expected: $expected)" >&2
    exit 1
fi
# The core is compiled against FoundationEssentials (issue 37, DESIGN.md "FoundationEssentials"):
# an app that imports only CurlBridge loads neither libFoundation.so nor ICU's data.
needed=$(readelf -d "$app/.build/debug/App" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p' | tr '\n' ' ')
echo "links: $needed"
if echo "$needed" | grep -qE '(^| )lib(Foundation|FoundationInternationalization|FoundationNetworking|FoundationXML|_FoundationICU)\.so'; then
    echo "error: an app that imports only CurlBridge links full Foundation" >&2
    exit 1
fi
