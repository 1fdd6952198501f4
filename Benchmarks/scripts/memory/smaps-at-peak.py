#!/usr/bin/env python3
"""Runs a command (its stdout discarded) and keeps /proc/PID/smaps and status at its highest
resident set, read every 2 ms, in OUT.smaps and OUT.status. Usage: smaps-at-peak.py OUT CMD..."""
import subprocess
import sys
import time

out, command = sys.argv[1], sys.argv[2:]
process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
best = 0
while process.poll() is None:
    try:
        with open(f"/proc/{process.pid}/smaps_rollup") as rollup:
            rss = int(rollup.read().split("Rss:")[1].split()[0])
        if rss > best:
            with open(f"/proc/{process.pid}/smaps") as smaps, open(f"/proc/{process.pid}/status") as status:
                kept = smaps.read(), status.read()
            if kept[0]:
                best = rss
                open(out + ".smaps", "w").write(kept[0])
                open(out + ".status", "w").write(kept[1])
    except (FileNotFoundError, ProcessLookupError, IndexError):
        pass
    time.sleep(0.002)
sys.exit(process.returncode)
