#!/usr/bin/env bash
# The tiers of the CurlBridge target, checked by the compiler (DESIGN.md, "Tiers"):
#
#   Core/      requests, responses, errors, the request machine and its executor, the engine
#              protocols, sinks and policy values: sees nothing but itself, and no libcurl
#   Curl/      the curl engine, its loop and options: sees Core, and is the only tier that
#              imports CCurl
#   Features/  engines over the core's: the cache and the stub; see Core only
#   Clients/   the transport that assembles the engines, the three clients and the download
#              queue built on them: see everything
#
# Each lower tier is type-checked alone, with only the tiers it may see: a file that names a type
# of a tier above it, or imports CCurl outside Curl/, fails here, with the compiler's own message.
# Needs the package built first (scripts/test.sh), for the HTTPTypes and Logging modules.
set -euo pipefail
cd "$(dirname "$0")/.."
sources=Sources/CurlBridge
modules=$(swift build --show-bin-path)/Modules
[ -d "$modules" ] || modules=$(swift build --show-bin-path)
strays=$(grep -rlE '^\s*(@\w+\s+)*(\w+\s+)?import\s+(\w+\s+)?CCurl\b' "$sources" --include='*.swift' | grep -v "^$sources/Curl/" || true)
if [ -n "$strays" ]; then
    echo "error: only Curl/ may import CCurl; these do:" >&2
    echo "$strays" >&2
    exit 1
fi

# typecheck NAME TIER... : the files of the given tiers, as one module.
typecheck() {
    local name=$1; shift
    local files=() flags=()
    for tier in "$@"; do
        while IFS= read -r -d '' file; do files+=("$file"); done < <(find "$sources/$tier" -name '*.swift' -print0)
    done
    if [[ " $* " == *" Curl "* ]]; then flags=(-Xcc "-fmodule-map-file=Sources/CCurl/module.modulemap" -I Sources/CCurl); fi
    if ! swiftc -typecheck -module-name CurlBridge -swift-version 6 -I "$modules" "${flags[@]}" "${files[@]}"; then
        echo "error: the $name tier reaches beyond $* (above)" >&2
        exit 1
    fi
    echo "tier $name: ${#files[@]} files see only $*"
}
typecheck Core Core
typecheck Curl Core Curl
typecheck Features Core Features
typecheck Clients Core Curl Features Clients

# The download queue is built on the clients as a program would build it (issue 36): Clients/Queue
# is type-checked as a module of its own that imports CurlBridge, so that it sees only CurlBridge's
# public interface (the built module, itself compiled from these files too: the queue's own
# declarations shadow the imported ones). A use of anything internal fails here. One leaf file of
# the support layer goes with it, as a program would bring its own lock: PosixLock.swift (a
# pthread mutex ThreadSanitizer sees; it depends on nothing else of CurlBridge).
queue=$(mktemp -d)
trap 'rm -rf "$queue"' EXIT
queueFiles=()
while IFS= read -r -d '' file; do
    copy="$queue/$(basename "$file")"
    { echo "import CurlBridge"; cat "$file"; } > "$copy"
    queueFiles+=("$copy")
done < <(find "$sources/Clients/Queue" -name '*.swift' -print0)
cp "$sources/Core/Support/PosixLock.swift" "$queue/PosixLock.swift"
queueFiles+=("$queue/PosixLock.swift")
if ! swiftc -typecheck -module-name CurlBridgeQueue -swift-version 6 -I "$modules" \
    -Xcc "-fmodule-map-file=Sources/CCurl/module.modulemap" -I Sources/CCurl "${queueFiles[@]}"; then
    echo "error: Clients/Queue reaches beyond CurlBridge's public API (above; line numbers are one past the file's)" >&2
    exit 1
fi
echo "queue: ${#queueFiles[@]} files (PosixLock.swift with them) see only CurlBridge's public API"

# The core is compiled against FoundationEssentials, not Foundation (issue 37, DESIGN.md
# "FoundationEssentials"): a program that imports only CurlBridge must not load libFoundation.so,
# its ICU data and FoundationInternationalization. Every `import Foundation` in the core is the
# fallback of `#if canImport(FoundationEssentials)` (macOS, where there is no such module), and no
# object file of the built module asks the linker for full Foundation, whatever brought it (a
# stray import, or a dependency's).
plain=$(find "$sources" -name '*.swift' -exec awk '
    /^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*([a-z]+[[:space:]]+)?import[[:space:]]+([a-z]+[[:space:]]+)?Foundation(Networking|XML|Internationalization)?([[:space:].]|$)/ {
        if (!($0 ~ /^import Foundation$/ && previous == "#else" && beforeThat == "import FoundationEssentials")) print FILENAME ":" FNR ": " $0
    }
    { beforeThat = previous; previous = $0 }' {} +)
if [ -n "$plain" ]; then
    echo "error: the core imports full Foundation; write #if canImport(FoundationEssentials) import FoundationEssentials #else import Foundation #endif:" >&2
    echo "$plain" >&2
    exit 1
fi
objects=$(swift build --show-bin-path)/CurlBridge.build
linked=()
while IFS= read -r -d '' file; do
    object="$objects/$(basename "$file").o"
    if [ ! -f "$object" ]; then echo "error: $object is missing: build the package first" >&2; exit 1; fi
    if readelf -p .swift1_autolink_entries "$object" | grep -qE -- '-l(Foundation|FoundationInternationalization|FoundationNetworking|FoundationXML|_FoundationICU)([^A-Za-z]|$)'; then
        linked+=("$file")
    fi
done < <(find "$sources" -name '*.swift' -print0)
if [ ${#linked[@]} -gt 0 ]; then
    echo "error: these files of the core link full Foundation (readelf -p .swift1_autolink_entries):" >&2
    printf '%s\n' "${linked[@]}" >&2
    exit 1
fi
echo "foundation: the core imports FoundationEssentials only, and none of its objects links Foundation"
