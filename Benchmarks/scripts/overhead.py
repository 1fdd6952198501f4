#!/usr/bin/env python3
"""What each client spends per request over the one before it, by kind of work, from callgrind runs.

    overhead.py REQUESTS TOP LABEL SMALL LARGE [LABEL SMALL LARGE ...]

Each client ran twice under callgrind (SMALL and LARGE requests, REQUESTS apart), so start-up
and teardown cancel in the difference. Prints two Markdown tables: each kind's self cost per
request for every client, and each client's difference from the one before it; then the last
client's own functions (its executable: CurlBridge, the benchmark and the Swift packages linked
in) that cost the most per request (TOP of them), demangled.

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
    r"|swift_(allocObject|deallocObject|slowAlloc|slowDealloc|deallocClassInstance"
    r"|deallocPartialClassInstance))\b")
LOCKS = re.compile(r"pthread_mutex|lll_(un)?lock|futex")
METADATA = re.compile(r"[Mm]etadata|[Ww]itness|EnumTag|swift_get")

OWN_CODE = "own code"
REFERENCE_COUNTING_KIND = "reference counting (swift_retain, swift_release)"
ALLOCATION_KIND = "allocation (malloc family, Swift objects)"
METADATA_KIND = "Swift runtime: metadata and value witnesses"
RUNTIME_KIND = "Swift runtime: the rest"
LOCKS_KIND = "locks and futexes"
OTHER_KIND = "other"
# The kind of each library's remaining functions, by the start of its file name; the Swift
# runtime's are split by METADATA.
LIBRARY_KINDS = [("libswift_Concurrency", "Swift concurrency"), ("libdispatch", "libdispatch"),
                 ("libcurl", "libcurl"), ("libssl", "OpenSSL, nghttp2, zlib"), ("libcrypto", "OpenSSL, nghttp2, zlib"),
                 ("libnghttp2", "OpenSSL, nghttp2, zlib"), ("libz", "OpenSSL, nghttp2, zlib"),
                 ("libc.so", "libc: the rest"), ("ld-linux", "dynamic linker")]
KINDS = [OWN_CODE, REFERENCE_COUNTING_KIND, ALLOCATION_KIND, METADATA_KIND, RUNTIME_KIND,  # in the order printed
         "Swift concurrency", "libdispatch", LOCKS_KIND, "libcurl", "OpenSSL, nghttp2, zlib", "libc: the rest",
         "dynamic linker", OTHER_KIND]


def kind(obj: str, function: str) -> str:
    """The kind of work a function's self cost is."""
    if REFERENCE_COUNTING.search(function):
        return REFERENCE_COUNTING_KIND
    if ALLOCATION.search(function):
        return ALLOCATION_KIND
    if obj.startswith("bench-"):
        return OWN_CODE
    if LOCKS.search(function):
        return LOCKS_KIND
    if obj.startswith("libswiftCore"):
        return METADATA_KIND if METADATA.search(function) else RUNTIME_KIND
    return next((name for prefix, name in LIBRARY_KINDS if obj.startswith(prefix)), OTHER_KIND)


def self_costs(path: str) -> collections.Counter:
    """Self cost of each (object, function) in one callgrind output, read from the file itself:
    callgrind_annotate merges functions of the same name from different objects, and unnamed
    functions of stripped libraries with them. Checked against the file's own total."""
    names = {"ob": {}, "fn": {}}
    costs = collections.Counter()
    obj = function = ""
    positions, summary = 1, None
    after_call = False
    with open(path) as lines:
        for line in lines:
            if line[0].isdigit() or line[0] in "+-*":
                if after_call:  # the inclusive cost of the call above: not this function's own
                    after_call = False
                    continue
                fields = line.split()
                if len(fields) > positions:
                    costs[(obj, function)] += int(fields[positions])
                continue
            key, _, value = line.rstrip("\n").partition("=")
            if key in ("ob", "fn", "cob", "cfn"):
                table = names["ob" if key.endswith("ob") else "fn"]
                # "(id) name" the first time, "(id)" after: callgrind's name compression.
                match = re.match(r"\((\d+)\)(?: (.*))?$", value)
                if match and match.group(2) is not None:
                    table[match.group(1)] = match.group(2)
                name = table.get(match.group(1), "") if match else value
                if key == "ob":
                    obj = name.rsplit("/", 1)[-1]
                elif key == "fn":
                    function = name
            elif key == "calls":
                after_call = True
            elif line.startswith("positions:"):
                positions = len(line.split()) - 1
            elif line.startswith("events:") and line.split()[1:2] != ["Ir"]:
                sys.exit(f"{path}: the first event is not Ir: {line.strip()}")
            elif line.startswith("summary:"):
                summary = int(line.split()[1])
    if summary is not None and sum(costs.values()) != summary:
        sys.exit(f"{path}: self costs add up to {sum(costs.values())}, the file's summary is {summary}")
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
    if len(sys.argv) < 6 or (len(sys.argv) - 3) % 3 != 0:
        sys.exit("usage: overhead.py REQUESTS TOP LABEL SMALL LARGE [LABEL SMALL LARGE ...]")
    requests, top = int(sys.argv[1]), int(sys.argv[2])
    clients = [(sys.argv[i], per_request(sys.argv[i + 1], sys.argv[i + 2], requests))
               for i in range(3, len(sys.argv) - 2, 3)]
    labels = [label for label, _ in clients]

    totals = {name: [0.0] * len(clients) for name in KINDS}
    for column, (_, costs) in enumerate(clients):
        for (obj, function), cost in costs.items():
            totals[kind(obj, function)][column] += cost
    steps = [f"{after} − {before}" for before, after in zip(labels, labels[1:])]
    print("| kind | " + " | ".join(labels + steps) + " |")
    print("|---|" + "---:|" * (len(labels) + len(steps)))

    def row(name: str, values: list, bold: bool = False) -> str:
        cells = [f"{value:,.0f}" for value in values]
        cells += [f"{after - before:+,.0f}" for before, after in zip(values, values[1:])]
        if bold:
            cells = [f"**{cell}**" for cell in cells]
        return f"| {name} | " + " | ".join(cells) + " |"

    for name in KINDS:
        if any(abs(value) >= 0.5 for value in totals[name]):
            print(row(name, totals[name]))
    print(row("**total**", [sum(totals[name][i] for name in KINDS) for i in range(len(clients))], bold=True))

    label, costs = clients[-1]
    own = sorted((key for key in costs if key[0].startswith("bench-")), key=lambda key: (-costs[key], key))[:top]
    names = demangled([function for _, function in own])
    print(f"\n{label}'s own functions, self cost per request (top {len(own)}):\n")
    print("| function | instructions |")
    print("|---|---:|")
    for key, name in zip(own, names):
        print(f"| `{name[:140]}` | {costs[key]:,.0f} |")


if __name__ == "__main__":
    main()
