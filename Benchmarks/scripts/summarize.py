#!/usr/bin/env python3
"""Turns run.sh's raw results (workload<TAB>label<TAB>json per run) into RESULTS.md: per workload,
the median of each metric per client, with ratios against raw libcurl, against the safe raw baseline
where the workload has one (SAFE) and, for CurlBridge's rows, against URLSession and AsyncHTTPClient;
then the targets of issues 3, 23 and 37 and of the transfers issue, checked. With --previous,
workloads this run did not measure are carried over from an earlier RESULTS.md (its raw block),
marked with the date of their run."""

import argparse
import datetime
import json
import platform
import statistics
import subprocess
import sys
from collections import OrderedDict

# workload: (title, the libcurl row ratios are taken against, the URLSession and AHC rows CurlBridge's are compared with)
TITLES = {
    "1-sequential-h1": ("1. Sequential small GETs, keep-alive, HTTP/1.1", "libcurl-easy", "urlsession-sync", "ahc"),
    "2-64-in-flight-h1": ("2. Small GETs, 64 in flight, HTTP/1.1", "libcurl-multi", "urlsession-async", "ahc"),
    "3-64-in-flight-h2-tls": ("3. Small GETs, 64 in flight, HTTP/2 over TLS", "libcurl-multi", "urlsession-async", "ahc"),
    "4a-download-to-devnull": ("4a. One large download streamed to /dev/null", "libcurl-multi", "urlsession-sync", "ahc"),
    "4b-download-to-file-fsync": ("4b. One large download to a file, flushed to disk (fsync)", "libcurl-multi",
                                  "urlsession-download", "ahc-download"),
    "4c-download-to-file-no-fsync": ("4c. One large download streamed to a file, not flushed (page cache)", "libcurl-multi",
                                     "urlsession-sync", "ahc"),
    "5-1000-in-flight-h1": ("5. Small GETs, 1,000 in flight, HTTP/1.1", "libcurl-multi", "urlsession-async", "ahc"),
    "6-64k-64-in-flight-h1": ("6. 64 KiB GETs, 64 in flight, HTTP/1.1", "libcurl-multi", "urlsession-async", "ahc"),
    "7-slow-consumer-10mbps": ("7. A large body streamed to a consumer reading 10 MB/s", "libcurl-easy", "urlsession-sync", "ahc"),
    "8-upload-from-file": ("8. One large upload from a file (POST)", "libcurl-multi", "urlsession-sync", "ahc"),
    "9-new-tls-connections": ("9. Sequential GETs, each on a new TLS connection, system trust store", "libcurl-easy",
                              "urlsession-sync", "ahc"),
}
# workload: (the safe raw baselines, their column's title). On libcurl < 8.1 a reused easy handle keeps
# a dangling header pointer (curl PR 11103), so CurlBridge makes a fresh handle per request: raw libcurl
# doing the same is the limit it can reach. For 64 KiB bodies the baseline also holds each body in
# memory, as any client that returns a body must. Where a workload measures several, the fastest is
# the table's safe raw (workload 1: curl_easy_perform, or one multi handle with one request in flight).
SAFE = {
    "1-sequential-h1": (("libcurl-easy-fresh", "libcurl-multi-fresh"), "× safe raw"),
    "2-64-in-flight-h1": (("libcurl-multi-fresh",), "× safe raw"),
    "3-64-in-flight-h2-tls": (("libcurl-multi-fresh",), "× safe raw"),
    "5-1000-in-flight-h1": (("libcurl-multi-fresh",), "× safe raw"),
    "6-64k-64-in-flight-h1": (("libcurl-multi-fresh-collect",), "× collecting safe raw"),
}


def safe_baseline(workload, rows, key):
    """The label of the workload's safe raw baseline (the fastest of its SAFE rows measured, the
    first when none was), or None for a workload without one."""
    labels = SAFE.get(workload, ((), None))[0]
    measured = [label for label in labels if (rows.get(label) or {}).get(key)]
    return max(measured, key=lambda label: rows[label][key]) if measured else (labels[0] if labels else None)


# What a reader of a workload's table must know, printed under its title.
NOTES = {
    "4a-download-to-devnull": "CurlBridge's rows stream through each style's streaming API (`AsyncClient.stream` and "
                              "`for try await` over the body, `BlockingClient.stream` and `read()`, `CallbackClient.stream` "
                              "and `onData`) and write every chunk to /dev/null, as raw libcurl's write callback does.",
    "4b-download-to-file-fsync": "Every client's time includes flushing the file to disk. CurlBridge's `download(_:to:)` "
                                 "writes a partial file beside the destination, `fsync`s it and renames it (always); raw libcurl "
                                 "writes the file with write(2) from its callback and calls `fsync` once at the end (`--fsync`: "
                                 "without it, as in 4c, its file stays in the page cache); URLSession's `downloadTask` file is "
                                 "renamed into place and AHC's `FileDownloadDelegate` writes it, each then `fsync`ed. Raw "
                                 "libcurl's p50 ends at its last byte written, before its `fsync`; its MB/s includes it.",
    "4c-download-to-file-no-fsync": "Nobody flushes: the file stays in the page cache. CurlBridge streams here (async, "
                                    "`for try await`, each chunk written by the consumer task), since `download(_:to:)` always flushes.",
    "7-slow-consumer-10mbps": "The consumer sleeps after each chunk so that it never takes more than 10 MB/s; the MB/s "
                              "is 10 by construction and the memory is what counts. Raw libcurl's consumer sleeps inside "
                              "its write callback (curl stops reading the socket meanwhile).",
    "9-new-tls-connections": "The server closes every connection and resumes no TLS session, so each request is a "
                             "first request to a new https host: TCP and a full TLS handshake, with the server's chain "
                             "verified against the system CA store (the machine's bundle with the test CA appended, "
                             "bind-mounted over it for every client). `libcurl-easy` gives curl the CA file alone, as "
                             "CurlBridge does, so curl caches the parsed store; `libcurl-easy-ca-path` is Debian's "
                             "libcurl as built (CA file and directory), which parses the bundle for every connection. "
                             "The peak RSS of this sequential, one-connection-at-a-time workload is what a process "
                             "that makes a few requests holds.",
    "8-upload-from-file": "POSTs of the 1 GiB file to bench-upload-sink, which reads each body to its end before answering "
                          "with the number of bytes it read; a run counts only when that number is the file's size.",
}

# Workloads of one large body, measured in MB/s.
TRANSFERS = ("4", "7", "8")
METRICS = ["rps", "mb_per_s", "p50_ms", "p99_ms", "cpu_ms_per_request", "peak_rss_mib", "start_anon_mib", "peak_anon_mib",
           "threads_peak"]


def command_output(*args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average():
    try:
        with open("/proc/loadavg") as loadavg:
            return ", ".join(loadavg.read().split()[:3])
    except OSError:
        return "unknown"


def load(path):
    """{workload: {label: [runs]}} in first-seen order."""
    results = OrderedDict()
    with open(path) as raw:
        for line in raw:
            workload, label, payload = line.rstrip("\n").split("\t", 2)
            results.setdefault(workload, OrderedDict()).setdefault(label, []).append(json.loads(payload))
    return results


def workload_number(workload):
    """The workload's number as run.sh knows it: "4" for "4b-download-to-file-fsync"."""
    return workload.split("-", 1)[0].rstrip("abcdefghijklmnopqrstuvwxyz")


def carry_over(raw, previous_path):
    """Adds to `raw` the runs of workloads this run did not measure, from the raw block of an
    earlier RESULTS.md, each marked with the date of the run that measured it ("from_run")."""
    try:
        with open(previous_path) as previous:
            text = previous.read()
    except OSError:
        return
    date = next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("- Date:")), "an earlier run")
    header = next((line[2:] for line in text.splitlines() if line.startswith("- SCALE=")), "")
    measured = {workload_number(w) for w in raw}
    block = text.split("<summary>Raw runs", 1)[-1]
    for line in block.splitlines():
        if not line.startswith("{"):
            continue
        run = json.loads(line)
        workload = run.get("workload")
        if not workload or workload_number(workload) in measured:
            continue
        run.setdefault("from_run", f"{date} ({header.split(';')[0]})" if header else date)
        label = run.pop("label", None) or run["client"]
        raw.setdefault(workload, OrderedDict()).setdefault(label, []).append(run)


def ordered(raw):
    """The workloads in the order of TITLES, unknown ones last."""
    order = list(TITLES)
    return OrderedDict(sorted(raw.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order)))


def median_row(runs):
    """Median of each metric over the runs that measured something, plus totals and notes."""
    measured = [r for r in runs if not r.get("skipped") and not r.get("failed")]
    row = {"runs": len(runs), "measured": len(measured)}
    for metric in METRICS:
        values = [r[metric] for r in measured if r.get(metric) is not None]
        row[metric] = statistics.median(values) if values else None
    row["errors"] = sum(r.get("errors") or 0 for r in measured)
    row["requests"] = next((r.get("requests") for r in measured if r.get("requests")), None)
    row["skipped"] = next((r["skipped"] for r in runs if r.get("skipped")), None)
    row["failed"] = next((r["failed"] for r in runs if r.get("failed")), None)
    row["from_run"] = next((r["from_run"] for r in runs if r.get("from_run")), None)
    return row


def fmt(value, digits=0):
    if value is None:
        return "–"
    if digits == 0:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


def ratio(value, base):
    if value is None or not base:
        return ""
    return f"{value / base:.2f}×"


def table(workload, rows):
    title, baseline, urlsession, ahc_label = TITLES.get(workload, (workload, "libcurl-multi", "urlsession-async", "ahc"))
    download = workload.startswith(TRANSFERS)
    key = "mb_per_s" if download else "rps"
    safe_label, safe_title = safe_baseline(workload, rows, key), SAFE.get(workload, (None, None))[1]
    base = rows.get(baseline, {}).get(key)
    safe = rows.get(safe_label, {}).get(key) if safe_label else None
    session = rows.get(urlsession, {}).get(key)
    ahc = rows.get(ahc_label, {}).get(key)
    any_row = next((r for r in rows.values() if r.get("requests")), {})
    lines = [f"### {title}", ""]
    carried = next((r["from_run"] for r in rows.values() if r.get("from_run")), None)
    if carried:
        lines.append(f"*Carried over from the run of {carried}: this run did not measure this workload.*")
        lines.append("")
    if workload in NOTES:
        lines.append(NOTES[workload])
        lines.append("")
    if any_row:
        count = any_row["requests"]
        runs = max(r["runs"] for label, r in rows.items() if label != "wrk")
        candidates = SAFE.get(workload, ((), None))[0]
        faster = f" (the faster of {' and '.join(f'`{label}`' for label in candidates)})" if len(candidates) > 1 else ""
        against_safe = f", against the safe raw baseline `{safe_label}`{faster}" if safe_label else ""
        lines.append(f"{count:,} request{'s' if count != 1 else ''} per run, median of {runs} run{'s' if runs != 1 else ''}; "
                     f"ratios of {'MB/s' if download else 'requests/s'} "
                     f"against `{baseline}`{against_safe}, and for CurlBridge against `{urlsession}` and `{ahc_label}`.")
        lines.append("")
    headers = ["client", "req/s", "MB/s", "p50 ms", "p99 ms", "CPU ms/req", "peak RSS MiB", "anon MiB start → peak", "threads",
               "errors", f"× {baseline}", *([safe_title] if safe_label else []), "× URLSession", "× AHC"]
    lines.append("| " + " | ".join(headers) + " |")
    lines.append("|---|" + "---:|" * (len(headers) - 1))
    for label, row in rows.items():
        name = "wrk (server ceiling)" if label == "wrk" else label
        if row["skipped"]:
            lines.append(f"| {name} | skipped: {row['skipped']} |" + " |" * (len(headers) - 2))
            continue
        if row["measured"] == 0:
            lines.append(f"| {name} | FAILED: {row['failed'] or 'no result'} |" + " |" * (len(headers) - 2))
            continue
        curlbridge = label.startswith("curlbridge")
        anonymous = "–" if row["peak_anon_mib"] is None else f"{fmt(row['start_anon_mib'], 1)} → {fmt(row['peak_anon_mib'], 1)}"
        lines.append("| " + " | ".join([
            name, fmt(row["rps"]), fmt(row["mb_per_s"], 1), fmt(row["p50_ms"], 3), fmt(row["p99_ms"], 3),
            fmt(row["cpu_ms_per_request"], 4 if not download else 1), fmt(row["peak_rss_mib"], 1), anonymous,
            fmt(row["threads_peak"]), str(row["errors"]) + ("" if row["measured"] == row["runs"] else f" ({row['runs'] - row['measured']} runs failed)"),
            "" if label in ("wrk", baseline) else ratio(row[key], base),
            *(["" if label in ("wrk", safe_label) else ratio(row[key], safe)] if safe_label else []),
            ratio(row[key], session) if curlbridge else "", ratio(row[key], ahc) if curlbridge else "",
        ]) + " |")
    lines.append("")
    return lines


def targets(results):
    """Issue 3's targets, each checked against this run's medians where both sides were measured."""
    checks = []

    def value(workload, label, key):
        row = results.get(workload, {}).get(label)
        return row.get(key) if row and not row["skipped"] and row["measured"] else None

    # Issue 37's table adds a column (`shows_floor`): the same measure of the Swift floor in the same
    # style, where run, which each check is given as `floor`. The older tables have no such column.
    shows_floor = False

    def formatted(actual, unit):
        return f"{actual:.2f}×" if unit == "×" else f"{actual:.0f} {unit}" if unit == "threads" else f"{actual:.1f} {unit}"

    def check(text, actual, goal, higher=True, unit="×", floor=None):
        wanted = f"{'≥' if higher else '≤'} {goal}{'×' if unit == '×' else ' ' + unit}"
        floor_cell = "" if not shows_floor else f" {'–' if floor is None else formatted(floor, unit)} |"
        if actual is None:
            checks.append(f"| {text} | not measured | {wanted} | – |{floor_cell}")
            return
        ok = actual >= goal if higher else actual <= goal
        checks.append(f"| {text} | {formatted(actual, unit)} | {wanted} | {'yes' if ok else '**no**'} |{floor_cell}")

    def over(workload, label, base, key="rps"):
        a, b = value(workload, label, key), value(workload, base, key)
        return a / b if a is not None and b else None

    def check_style(text, workload, style, base, goal, key="rps", **options):
        """`check` of CurlBridge in `style` against `base`, with the Swift floor in the same style beside it."""
        check(text, over(workload, f"curlbridge-{style}", base, key), goal,
              floor=over(workload, f"swift-floor-{style}", base, key), **options)

    check("sequential blocking vs libcurl easy", over("1-sequential-h1", "curlbridge-blocking", "libcurl-easy"), 0.8)
    for workload in ("2-64-in-flight-h1", "3-64-in-flight-h2-tls"):
        for style in ("async", "callback"):
            check(f"{workload}: {style} vs libcurl multi", over(workload, f"curlbridge-{style}", "libcurl-multi"), 0.8)
    for workload, session in (("1-sequential-h1", "urlsession-sync"), ("2-64-in-flight-h1", "urlsession-async"),
                              ("3-64-in-flight-h2-tls", "urlsession-async"), ("5-1000-in-flight-h1", "urlsession-async")):
        styles = ("blocking", "async", "callback") if workload.startswith("1") else ("async", "callback")
        for style in styles:
            check(f"{workload}: {style} vs URLSession", over(workload, f"curlbridge-{style}", session), 4)
            check(f"{workload}: {style} vs AHC", over(workload, f"curlbridge-{style}", "ahc"), 2)
    for style in ("async", "callback"):
        check(f"5-1000-in-flight-h1: {style} threads", value("5-1000-in-flight-h1", f"curlbridge-{style}", "threads_peak"), 6, higher=False, unit="threads")
    issue3 = ["## Targets of issue 3", "", "| target | measured | goal | met |", "|---|---:|---:|---|", *checks, ""]

    # The transfers issue: downloads to a file, streaming, a slow consumer, uploads.
    checks.clear()

    def over_fastest(workload, label, raw_labels):
        """MB/s of `label` over the fastest raw libcurl row of the workload."""
        fastest = max((v for v in (value(workload, l, "mb_per_s") for l in raw_labels) if v), default=None)
        mine = value(workload, label, "mb_per_s")
        return mine / fastest if mine is not None and fastest else None

    styles = ("async", "blocking", "callback")
    for style in styles:
        label = f"curlbridge-{style}-download"
        check(f"4b download to a file (`download(_:to:)`, {style}) vs fastest libcurl writing + fsync",
              over_fastest("4b-download-to-file-fsync", label, ("libcurl-easy", "libcurl-multi")), 0.9)
        check(f"4b download to a file ({style}): peak RSS", value("4b-download-to-file-fsync", label, "peak_rss_mib"),
              24, higher=False, unit="MiB")
    for style in styles:
        check(f"4a streamed to /dev/null ({style}) vs fastest libcurl to /dev/null",
              over_fastest("4a-download-to-devnull", f"curlbridge-{style}", ("libcurl-easy", "libcurl-multi", "libcurl-multi-16k")),
              0.85)
    for style in styles:
        check(f"7 slow consumer at 10 MB/s ({style}): peak RSS", value("7-slow-consumer-10mbps", f"curlbridge-{style}", "peak_rss_mib"),
              32, higher=False, unit="MiB")
    for style in styles:
        check(f"8 upload from a file ({style}) vs fastest libcurl",
              over_fastest("8-upload-from-file", f"curlbridge-{style}", ("libcurl-easy", "libcurl-multi", "libcurl-multi-512k-upload")),
              0.9)
        check(f"8 upload from a file ({style}): peak RSS", value("8-upload-from-file", f"curlbridge-{style}", "peak_rss_mib"),
              32, higher=False, unit="MiB")
    def growth(workload, label):
        peak, start = value(workload, label, "peak_anon_mib"), value(workload, label, "start_anon_mib")
        return peak - start if peak is not None and start is not None else None

    for workload, label in (("4b-download-to-file-fsync", "curlbridge-async-download"), ("4a-download-to-devnull", "curlbridge-async"),
                            ("7-slow-consumer-10mbps", "curlbridge-async"), ("8-upload-from-file", "curlbridge-async")):
        grown = growth(workload, label)
        shown = "not measured" if grown is None else f"{grown:.1f} MiB"
        checks.append(f"| {workload} {label}: anonymous memory added during the transfer (peak − start; for reading the RSS) "
                      f"| {shown} | – | – |")
    transfers = ["## Targets of the transfers issue", "",
                 "The issue's targets are for the async style (the `AsyncSequence` for streaming); blocking and callback "
                 "are checked against the same goals. Ratios are against the fastest raw libcurl row of the workload.", "",
                 "| target | measured | goal | met |", "|---|---:|---:|---|", *checks, ""]

    # Issue 23, performance round two: ratios against raw libcurl doing the same requests.
    checks.clear()
    for style in styles:
        check(f"1 sequential h1 ({style}) vs libcurl easy", over("1-sequential-h1", f"curlbridge-{style}", "libcurl-easy"), 0.85)
    for style in ("async", "callback"):
        check(f"3 HTTP/2 + TLS, 64 in flight ({style}) vs libcurl multi",
              over("3-64-in-flight-h2-tls", f"curlbridge-{style}", "libcurl-multi"), 0.9)
    for style in ("async", "callback"):
        check(f"6 64 KiB, 64 in flight ({style}) vs libcurl multi", over("6-64k-64-in-flight-h1", f"curlbridge-{style}", "libcurl-multi"), 0.9)
        check(f"6 64 KiB, 64 in flight ({style}) vs AHC", over("6-64k-64-in-flight-h1", f"curlbridge-{style}", "ahc"), 1.2)
    for style in styles:
        check(f"4a streamed to /dev/null ({style}) vs fastest libcurl",
              over_fastest("4a-download-to-devnull", f"curlbridge-{style}", ("libcurl-easy", "libcurl-multi", "libcurl-multi-16k")),
              0.9)
    check("4c streamed to a file (async) vs fastest libcurl",
          over_fastest("4c-download-to-file-no-fsync", "curlbridge-async", ("libcurl-easy", "libcurl-multi", "libcurl-multi-16k")), 1.0)
    check("4c streamed to a file (async) vs AHC", over("4c-download-to-file-no-fsync", "curlbridge-async", "ahc", "mb_per_s"), 1.0)
    def check_thousand_in_flight():
        """Issues 23 and 37 share these: 1,000 in flight at 0.95× raw with at most 1.5× its peak RSS."""
        for style in ("async", "async-executor", "callback"):
            check_style(f"5 1,000 in flight ({style}) vs libcurl multi", "5-1000-in-flight-h1", style, "libcurl-multi", 0.95)
            check_style(f"5 1,000 in flight ({style}): peak RSS over libcurl multi's", "5-1000-in-flight-h1", style,
                        "libcurl-multi", 1.5, key="peak_rss_mib", higher=False)

    def check_few_requests_memory():
        """Issues 23 and 37 share this: a process making a few requests at most 8 MiB above raw."""
        def above_raw(label):
            mine, raw = value("9-new-tls-connections", label, "peak_rss_mib"), value("9-new-tls-connections", "libcurl-easy", "peak_rss_mib")
            return mine - raw if mine is not None and raw is not None else None

        for style in styles:
            check(f"9 a process making a few requests ({style}): peak RSS above libcurl easy's",
                  above_raw(f"curlbridge-{style}"), 8, higher=False, unit="MiB", floor=above_raw(f"swift-floor-{style}"))

    check_thousand_in_flight()
    for style in styles:
        # Time per request within raw libcurl's + 10%: requests/s at least 1/1.1 of raw libcurl's.
        check(f"9 new TLS connections, system trust ({style}) vs libcurl easy (goal: time ≤ 1.1× raw)",
              over("9-new-tls-connections", f"curlbridge-{style}", "libcurl-easy"), round(1 / 1.1, 2))
    check_few_requests_memory()
    issue23 = ["## Targets of issue 23", "",
               "Ratios against raw libcurl doing the same requests (`LIBCURL_SAME_REQUESTS`), the fastest raw row for "
               "4a and 4c. Workload 9's goal of a first request within raw libcurl's time + 10% is checked as "
               "requests/s ≥ 0.91×.", "",
               "| target | measured | goal | met |", "|---|---:|---:|---|", *checks, ""]

    # Issue 37, the per-request hot path: against the safe raw baselines (SAFE) and AsyncHTTPClient.
    checks.clear()
    shows_floor = True
    def safe_of(workload):
        return safe_baseline(workload, results.get(workload, {}), "rps")

    # async-executor: the async style with its tasks on the transport's executor (`TransportExecutor`), an opt-in.
    safe_label = safe_of("1-sequential-h1")
    for style in ("blocking", "async", "async-executor"):
        check_style(f"1 sequential h1 ({style}) vs safe raw (`{safe_label}`)", "1-sequential-h1", style, safe_label, 0.9)
    for style in ("async", "async-executor", "callback"):
        check_style(f"2 64 in flight h1 ({style}) vs libcurl multi", "2-64-in-flight-h1", style, "libcurl-multi", 0.9)
    for workload, short in (("3-64-in-flight-h2-tls", "3 HTTP/2 + TLS, 64 in flight"), ("6-64k-64-in-flight-h1", "6 64 KiB, 64 in flight")):
        safe_label = safe_of(workload)
        for style in ("async", "async-executor", "callback"):
            check_style(f"{short} ({style}) vs AHC", workload, style, "ahc", 1.25)
            check_style(f"{short} ({style}) vs safe raw (`{safe_label}`)", workload, style, safe_label, 0.9)
    check_thousand_in_flight()
    check_few_requests_memory()
    issue37 = ["## Targets of issue 37", "",
               "The wall-clock targets; the instruction target (at most 20,000 extra per request over the safe raw "
               "baseline) is `instructions.sh`'s. Safe raw is raw libcurl with a fresh easy handle per request "
               "(`libcurl-easy-fresh` or `libcurl-multi-fresh`, the faster), as libcurl 7.88 forces on CurlBridge, and for 64 KiB "
               "bodies each body also collected in memory (`libcurl-multi-fresh-collect`). The last column is the same "
               "measure of the Swift floor (`bench-swift-floor`) in the same style where this run measured it: "
               "where this architecture starts, an estimate rather than a bound.", "",
               "| target | measured | goal | met | the Swift floor |", "|---|---:|---:|---|---:|", *checks, ""]
    return issue3 + transfers + issue23 + issue37


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("raw")
    parser.add_argument("--scale", default="1")
    parser.add_argument("--repeats", default="3")
    parser.add_argument("--build-seconds", type=int, default=0)
    parser.add_argument("--run-seconds", type=int, default=0)
    parser.add_argument("--previous", help="an earlier RESULTS.md whose workloads this run did not measure are kept")
    args = parser.parse_args()
    raw = load(args.raw)
    if args.previous:
        carry_over(raw, args.previous)
    raw = ordered(raw)
    results = OrderedDict((w, OrderedDict((label, median_row(runs)) for label, runs in rows.items())) for w, rows in raw.items())

    out = ["# CurlBridge benchmark results", ""]
    out.append(f"- Date: {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}")
    out.append(f"- Machine: `{command_output('uname', '-a')}`")
    out.append(f"- CPU: {cpu_model()}, {command_output('nproc')} cores")
    out.append(f"- libcurl: {command_output('pkg-config', '--modversion', 'libcurl')}; "
               f"server: {command_output('/usr/sbin/nginx', '-v') or subprocess.run(['/usr/sbin/nginx', '-v'], capture_output=True, text=True).stderr.strip()}; "
               f"{command_output('swift', '--version').splitlines()[0] if command_output('swift', '--version') else 'swift unknown'}")
    out.append(f"- SCALE={args.scale}, medians of {args.repeats} interleaved runs per client; "
               f"build {args.build_seconds} s, measured runs {args.run_seconds} s")
    out.append(f"- Load average (1, 5, 15 min) as the run ended: {load_average()} "
               "(the run itself keeps about 2 busy, client and nginx; more means other processes on this shared machine competed for the 2 cores)")
    out.append("")
    out.append("Produced by `Benchmarks/run.sh`; see `Benchmarks/README.md` for what each column means.")
    out.append("")
    for workload, rows in results.items():
        out.extend(table(workload, rows))
    out.extend(targets(results))
    out.append("<details><summary>Raw runs (one JSON line per invocation)</summary>")
    out.append("")
    out.append("```")
    for workload, rows in raw.items():
        for label, runs in rows.items():
            for run in runs:
                out.append(json.dumps(run if run.get("client") == label else {"label": label, **run}))
    out.append("```")
    out.append("</details>")
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
