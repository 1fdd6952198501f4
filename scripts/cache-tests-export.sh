#!/usr/bin/env bash
# Re-exports the http-tests/cache-tests suite (https://github.com/http-tests/cache-tests, the suite
# behind cache-tests.fyi) as the JSON the cache conformance test reads:
# Tests/cache-tests/tests.json, with the suite's LICENSE beside it. The suite's tests are
# JavaScript modules; node evaluates them once here, so neither CI nor the test needs node.
#
#   scripts/cache-tests-export.sh PATH-TO-CACHE-TESTS-CHECKOUT
#
# Afterwards, put the checkout's commit (printed at the end) in Tests/cache-tests/README.md.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 PATH-TO-CACHE-TESTS-CHECKOUT" >&2
    exit 2
fi
checkout=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
destination="$root/Tests/cache-tests"

if [ ! -f "$checkout/tests/index.mjs" ]; then
    echo "$checkout has no tests/index.mjs: not a cache-tests checkout" >&2
    exit 1
fi

mkdir -p "$destination"
(cd "$checkout" && node --input-type=module \
    -e "import t from './tests/index.mjs'; console.log(JSON.stringify(t, null, 1))") > "$destination/tests.json.new"
mv "$destination/tests.json.new" "$destination/tests.json"
cp "$checkout/LICENSE" "$destination/LICENSE"

echo "exported $(git -C "$checkout" rev-parse HEAD) to $destination/tests.json"
