import Glibc
import Synchronization

/// One client's run of one workload: starts the thread sampler, opens the output, measures the
/// timed part, and prints the JSON line.
///
/// ```swift
/// let run = BenchRun(client: "curlbridge-async", arguments: arguments)
/// // … build the client …
/// run.measure { /* send every request, recording each in run.recorder */ }
/// run.finish()
/// ```
public final class BenchRun: Sendable {
    /// The parsed command line.
    public let arguments: BenchArguments
    /// Where requests record their latency, errors and bytes.
    public let recorder: Recorder
    /// Where bodies are written.
    public let sink: BodySink
    private let sampler: ThreadSampler
    private let client: String
    private let window = WindowBox()
    private let startAnonymousBytes = Atomic<UInt64>(0)

    /// Starts the thread sampler and opens `arguments.output`; exits with 1 if it cannot.
    public init(client: String, arguments: BenchArguments) {
        sampler = ThreadSampler()
        self.client = client
        self.arguments = arguments
        recorder = Recorder(expected: arguments.requests)
        guard let sink = BodySink(path: arguments.output) else {
            standardError("\(client): cannot open \(arguments.output) for writing")
            exit(1)
        }
        self.sink = sink
    }

    /// Runs `workload`, which returns once every request has finished, then (with `--fsync`)
    /// flushes `--output` to disk, and records the wall time and CPU time of both.
    public func measure(_ workload: () -> Void) {
        startAnonymousBytes.store(ThreadSampler.currentAnonymousBytes(), ordering: .relaxed)
        let usage = ResourceUsage.now()
        let start = monotonicNanoseconds()
        workload()
        if arguments.fsync, !flushFile(atPath: arguments.output) {
            recorder.failure("fsync of \(arguments.output) failed")
        }
        window.set(nanoseconds: monotonicNanoseconds() - start, cpu: ResourceUsage.now().cpuNanoseconds - usage.cpuNanoseconds)
    }

    /// Times one request from `start` (a ``monotonicNanoseconds()`` reading) to now, as a success
    /// with `bytes` body bytes or as a failure described by `error`.
    public func record(since start: UInt64, bytes: Int = 0, error: String? = nil) {
        if let error {
            recorder.failure(error)
        } else {
            recorder.success(nanoseconds: monotonicNanoseconds() - start)
        }
        if bytes > 0 { recorder.received(bytes) }
    }

    /// Prints the report of the measured run and exits (0, or 1 if any request failed).
    public func finish() -> Never {
        var report = BenchReport(client: client, arguments: arguments)
        let (nanoseconds, cpu) = window.get()
        let latencies = recorder.sortedLatencies
        report.errors = recorder.errors
        report.seconds = Double(nanoseconds) / 1e9
        report.p50Milliseconds = Double(percentile(latencies, 0.50)) / 1e6
        report.p99Milliseconds = Double(percentile(latencies, 0.99)) / 1e6
        report.cpuMillisecondsPerRequest = Double(cpu) / 1e6 / Double(arguments.requests)
        report.threadsPeak = sampler.stop()
        report.peakRSSMiB = Double(ResourceUsage.now().peakResidentBytes) / 1_048_576
        report.peakAnonymousMiB = Double(sampler.peakAnonymousBytes) / 1_048_576
        report.startAnonymousMiB = Double(startAnonymousBytes.load(ordering: .relaxed)) / 1_048_576
        report.bytes = recorder.bytes
        report.print()
        if let first = recorder.firstError {
            standardError("\(client): \(report.errors) of \(arguments.requests) requests failed; first: \(first)")
        }
        exit(report.errors == 0 ? 0 : 1)
    }

    /// Prints a report saying the client did not run this workload, and why, and exits with 0.
    public func skip(_ reason: String) -> Never {
        _ = sampler.stop()
        var report = BenchReport(client: client, arguments: arguments)
        report.skipped = reason
        report.print()
        exit(0)
    }
}

/// The measured window, written once by ``BenchRun/measure(_:)``.
private final class WindowBox: Sendable {
    private let nanoseconds = Atomic<UInt64>(0)
    private let cpu = Atomic<UInt64>(0)

    func set(nanoseconds: UInt64, cpu: UInt64) {
        self.nanoseconds.store(nanoseconds, ordering: .sequentiallyConsistent)
        self.cpu.store(cpu, ordering: .sequentiallyConsistent)
    }

    func get() -> (UInt64, UInt64) {
        (nanoseconds.load(ordering: .sequentiallyConsistent), cpu.load(ordering: .sequentiallyConsistent))
    }
}
