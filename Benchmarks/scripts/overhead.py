#!/usr/bin/env python3
"""What one client spends per request over another, by kind of work, from callgrind runs.

    overhead.py REQUESTS BASE_LABEL BASE_SMALL BASE_LARGE LABEL SMALL LARGE [TOP]

Each client ran twice under callgrind (SMALL and LARGE requests, REQUESTS apart), so start-up
and teardown cancel in the difference. Prints two Markdown tables: each kind's self cost per
request for both clients and the difference, then the client's own functions (its executable:
CurlBridge, the benchmark and the Swift packages linked in) that cost the most per request,
demangled.

A single pair of runs: a request takes one or two loop turns depending on timing, so a total can
be off by a few thousand instructions; read the kinds as shares (INSTRUCTIONS.md)."""

import collections
import re
import subprocess
import sys

REFERENCE_COUNTING = re.compile(
    r"swift_(retain|release|bridgeObjectRetain|bridgeObjectRelease|unknownObjectRetain|unknownObjectRelease"
    r"|nonatomic|unownedRetain|unownedRelease|tryRetain|isUniquelyReferenced)|RefCount")
ALLOCATION = re.compile(
    r"^(malloc|_int_malloc|_int_free|free|cfree|calloc|realloc|_int_realloc|malloc_consolidate|tcache_\w*"
    r"|unlink_chunk|sysmalloc|alloc_perturb|arena_get2|__libc_(malloc|free|calloc)"
    r"|swift_(allocObject|deallocObject|slowAlloc|slowDealloc|deallocClassInstance|initStackObject"
    r"|deallocPartialClassInstance))\b")
LOCKS = re.compile(r"pthread_mutex|lll_(un)?lock|futex")
METADATA = re.compile(r"[Mm]etadata|[Ww]itness|EnumTag|swift_get")

KINDS = [  # in the order printed
    "own code",
    "reference counting (swift_retain, swift_release)",
    "allocation (malloc family, Swift objects)",
    "Swift runtime: metadata and value witnesses",
    "Swift runtime: the rest",
    "Swift concurrency",
    "libdispatch",
    "locks and futexes",
    "libcurl",
    "OpenSSL, nghttp2, zlib",
    "libc: the rest",
    "dynamic linker",
    "other",
]


def kind(obj: str, function: str) -> str:
    """The kind of work a function's self cost is."""
    if REFERENCE_COUNTING.search(function):
        return KINDS[1]
    if ALLOCATION.search(function):
        return KINDS[2]
    if obj.startswith("bench-"):
        return KINDS[0]
    if LOCKS.search(function):
        return KINDS[7]
    prefixes = [("libswiftCore", None), ("libswift_Concurrency", KINDS[5]), ("libdispatch", KINDS[6]),
                ("libcurl", KINDS[8]), ("libssl", KINDS[9]), ("libcrypto", KINDS[9]), ("libnghttp2", KINDS[9]),
                ("libz", KINDS[9]), ("libc.so", KINDS[10]), ("ld-linux", KINDS[11])]
    for prefix, name in prefixes:
        if obj.startswith(prefix):
            if name is None:
                return KINDS[3] if METADATA.search(function) else KINDS[4]
            return name
    return KINDS[12]


def self_costs(path: str) -> collections.Counter:
    """Self cost of each (object, function) in one callgrind output, read from the file itself:
    callgrind_annotate merges functions of the same name from different objects, and unnamed
    functions of stripped libraries with them."""
    names = {"ob": {}, "fn": {}}
    costs = collections.Counter()
    obj = function = ""
    after_call = False
    with open(path) as lines:
        for line in lines:
            if line[0].isdigit() or line[0] in "+-*":
                if after_call:  # the inclusive cost of the call above: not this function's own
                    after_call = False
                    continue
                fields = line.split()
                if len(fields) > 1:
                    costs[(obj, function)] += int(fields[1])
                continue
            key, _, value = line.rstrip("\n").partition("=")
            if key in ("ob", "fn", "cob", "cfn"):
                table = names["ob" if key.endswith("ob") else "fn"]
                match = re.match(r"\((\d+)\)(?: (.*))?$", value)
                name = table.setdefault(match.group(1), match.group(2) or "") if match else value
                if match and match.group(2):
                    table[match.group(1)] = match.group(2)
                if key == "ob":
                    obj = name.rsplit("/", 1)[-1]
                elif key == "fn":
                    function = name
            elif key == "calls":
                after_call = True
    return costs


def per_request(small: str, large: str, requests: int) -> dict:
    """Each function's self cost per request: the difference of the two runs over REQUESTS."""
    a, b = self_costs(small), self_costs(large)
    return {key: (b[key] - a[key]) / requests for key in set(a) | set(b)}


def demangled(names: list) -> list:
    """Swift names made readable (swift demangle --simplified); others unchanged."""
    result = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                            capture_output=True, text=True)
    lines = result.stdout.splitlines() if result.returncode == 0 else []
    return lines if len(lines) == len(names) else names


def main() -> None:
    requests = int(sys.argv[1])
    base_label, client_label = sys.argv[2], sys.argv[5]
    base = per_request(sys.argv[3], sys.argv[4], requests)
    client = per_request(sys.argv[6], sys.argv[7], requests)
    top = int(sys.argv[8]) if len(sys.argv) > 8 else 25

    totals = {name: [0.0, 0.0] for name in KINDS}
    for column, costs in enumerate((base, client)):
        for (obj, function), cost in costs.items():
            totals[kind(obj, function)][column] += cost
    print(f"| kind | {base_label} | {client_label} | difference |")
    print("|---|---:|---:|---:|")
    for name in KINDS:
        b, c = totals[name]
        if abs(b) >= 0.5 or abs(c) >= 0.5:
            print(f"| {name} | {b:,.0f} | {c:,.0f} | {c - b:+,.0f} |")
    b, c = (sum(totals[name][i] for name in KINDS) for i in (0, 1))
    print(f"| **total** | {b:,.0f} | {c:,.0f} | **{c - b:+,.0f}** |")

    own = sorted((key for key in client if key[0].startswith("bench-")), key=lambda key: -client[key])[:top]
    names = demangled([function for _, function in own])
    print(f"\n{client_label}'s own functions, self cost per request (top {len(own)}):\n")
    print("| function | instructions |")
    print("|---|---:|")
    for key, name in zip(own, names):
        print(f"| `{name[:140]}` | {client[key]:,.0f} |")


if __name__ == "__main__":
    main()
