#!/usr/bin/env python3
"""Resident KiB per mapped file (and for anonymous memory) of one or more smaps files, side by
side, with each column's difference to the first. Usage: by-mapping.py LABEL=FILE.smaps..."""
import collections
import re
import sys

def resident(path):
    rows = collections.Counter()
    name = None
    for line in open(path):
        header = re.match(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$", line)
        if header:
            name = header.group(1) or "[anon]"
            name = name.rsplit("/", 1)[-1] if name.startswith("/") else name
            name = "[anon]" if name in ("[heap]", "[stack]") or name.startswith("[stack:") else name
        elif line.startswith("Rss:"):
            rows[name] += int(line.split()[1])
    return rows

columns = [(spec.split("=", 1)[0], resident(spec.split("=", 1)[1])) for spec in sys.argv[1:]]
names = sorted({n for _, rows in columns for n in rows}, key=lambda n: -max(rows[n] for _, rows in columns))
print("| mapping | " + " | ".join(label for label, _ in columns) + " |")
print("|---|" + "---:|" * len(columns))
for name in names:
    if max(rows[name] for _, rows in columns) < 100:
        continue
    print(f"| {name} | " + " | ".join(f"{rows[name]:,}" for _, rows in columns) + " |")
others = [sum(v for n, v in rows.items() if max(r[n] for _, r in columns) < 100) for _, rows in columns]
print("| (mappings under 100 KiB) | " + " | ".join(f"{v:,}" for v in others) + " |")
print("| **total KiB** | " + " | ".join(f"**{sum(rows.values()):,}**" for _, rows in columns) + " |")
