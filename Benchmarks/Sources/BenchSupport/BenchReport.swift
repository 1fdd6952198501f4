/// The one JSON line a client prints: what it did, how fast, and at what cost.
public struct BenchReport: Sendable {
    /// The client, e.g. `"curlbridge-async"`.
    public var client: String
    /// The workload's name, from `--workload`.
    public var workload: String
    /// Requests sent.
    public var requests: Int
    /// Requests kept in flight.
    public var concurrency: Int
    /// Requests that failed or answered with a non-2xx status.
    public var errors: Int = 0
    /// Wall-clock time of the run.
    public var seconds: Double = 0
    /// Median latency in milliseconds.
    public var p50Milliseconds: Double = 0
    /// 99th-percentile latency in milliseconds.
    public var p99Milliseconds: Double = 0
    /// Process CPU time (user + system) during the run, per request, in milliseconds.
    public var cpuMillisecondsPerRequest: Double = 0
    /// Peak resident set size of the process, in MiB.
    public var peakRSSMiB: Double = 0
    /// The most anonymous resident memory (heap, stacks, buffers; `RssAnon`) seen, in MiB.
    public var peakAnonymousMiB: Double = 0
    /// Anonymous resident memory when the measured part started (clients set up), in MiB.
    public var startAnonymousMiB: Double = 0
    /// Most threads the process had at once (the sampler excluded).
    public var threadsPeak: Int = 0
    /// Body bytes received.
    public var bytes: Int64 = 0
    /// Why the client did not run this workload, when it did not.
    public var skipped: String?

    /// Creates a report for `client` on the workload described by `arguments`.
    public init(client: String, arguments: BenchArguments) {
        self.client = client
        self.workload = arguments.workload
        self.requests = arguments.requests
        self.concurrency = arguments.concurrency
    }

    /// Completed requests per second.
    public var requestsPerSecond: Double { seconds > 0 ? Double(requests - errors) / seconds : 0 }
    /// Body throughput in MB/s (10^6 bytes).
    public var megabytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds / 1e6 : 0 }

    /// The report as one line of JSON, fields in a fixed order.
    public var jsonLine: String {
        var fields: [(String, String)] = [
            ("client", quoted(client)), ("workload", quoted(workload)),
            ("requests", "\(requests)"), ("concurrency", "\(concurrency)"),
        ]
        if let skipped {
            fields += ["errors", "seconds", "rps", "p50_ms", "p99_ms", "cpu_ms_per_request", "peak_rss_mib",
                       "threads_peak", "bytes", "mb_per_s", "peak_anon_mib", "start_anon_mib"].map { ($0, "null") }
            fields.append(("skipped", quoted(skipped)))
        } else {
            fields += [
                ("errors", "\(errors)"), ("seconds", number(seconds, 4)), ("rps", number(requestsPerSecond, 1)),
                ("p50_ms", number(p50Milliseconds, 4)), ("p99_ms", number(p99Milliseconds, 4)),
                ("cpu_ms_per_request", number(cpuMillisecondsPerRequest, 5)), ("peak_rss_mib", number(peakRSSMiB, 2)),
                ("threads_peak", "\(threadsPeak)"), ("bytes", "\(bytes)"), ("mb_per_s", number(megabytesPerSecond, 1)),
                ("peak_anon_mib", number(peakAnonymousMiB, 2)), ("start_anon_mib", number(startAnonymousMiB, 2)),
            ]
        }
        return "{" + fields.map { "\(quoted($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// Writes ``jsonLine`` and a newline to standard output, unbuffered.
    public func print() {
        writeAll(1, jsonLine + "\n")
    }
}

private func quoted(_ text: String) -> String {
    var escaped = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": escaped += "\\\""
        case "\\": escaped += "\\\\"
        case "\n": escaped += "\\n"
        case _ where scalar.value < 0x20: escaped += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped + "\""
}

/// `value` with `digits` decimals, without Foundation's formatter.
private func number(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "null" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e15 else { return "\(value)" }
    let whole = Int64(scaled)
    let integer = whole / Int64(scale)
    var fraction = String(whole % Int64(scale))
    fraction = String(repeating: "0", count: max(0, digits - fraction.count)) + fraction
    return (value < 0 ? "-" : "") + "\(integer)" + (digits > 0 ? "." + fraction : "")
}
