import Glibc
import Synchronization

/// Samples the process's thread count and anonymous resident memory from `/proc/self/status`
/// every few milliseconds on a thread of its own, keeping the peaks; the sampler's own thread is
/// not counted.
///
/// Anonymous memory (`RssAnon`: heap, stacks, buffers) is what a client allocates; the rest of
/// the RSS is mapped library code and data, mostly the same for every run of a process.
public final class ThreadSampler: Sendable {
    private let peak = Atomic<Int>(0)
    private let peakAnonymousKiB = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)
    private let interval: UInt32

    /// Starts sampling every `intervalMicroseconds` (5 ms by default). With the environment's
    /// `BENCH_SAMPLER=off` (instructions.sh) it samples only at the start and at ``stop()``: no
    /// thread whose work grows with wall time.
    public init(intervalMicroseconds: UInt32 = 5_000) {
        interval = intervalMicroseconds
        let status = Self.currentStatus()
        peak.store(status.threads, ordering: .relaxed)
        peakAnonymousKiB.store(status.anonymousKiB, ordering: .relaxed)
        if let setting = getenv("BENCH_SAMPLER"), String(cString: setting) == "off" {
            running.store(false, ordering: .relaxed)
            finished.store(true, ordering: .releasing)
            return
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            let sampler = Unmanaged<ThreadSampler>.fromOpaque(context!).takeRetainedValue()
            sampler.loop()
            return nil
        }, context)
        if created == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<ThreadSampler>.fromOpaque(context).release()
            finished.store(true, ordering: .releasing)
        }
    }

    private func loop() {
        while running.load(ordering: .relaxed) {
            let status = Self.currentStatus()
            _ = peak.max(status.threads - 1, ordering: .relaxed)
            _ = peakAnonymousKiB.max(status.anonymousKiB, ordering: .relaxed)
            usleep(interval)
        }
        finished.store(true, ordering: .releasing)
    }

    /// Stops sampling (waiting at most a few intervals for the sampler to notice) and returns
    /// the peak thread count seen, the sampler excluded.
    public func stop() -> Int {
        running.store(false, ordering: .relaxed)
        for _ in 0..<200 where !finished.load(ordering: .acquiring) {
            usleep(interval)
        }
        let status = Self.currentStatus()
        _ = peak.max(status.threads - (finished.load(ordering: .acquiring) ? 0 : 1), ordering: .relaxed)
        _ = peakAnonymousKiB.max(status.anonymousKiB, ordering: .relaxed)
        return peak.load(ordering: .relaxed)
    }

    /// The most anonymous resident memory seen, in bytes.
    public var peakAnonymousBytes: UInt64 {
        UInt64(peakAnonymousKiB.load(ordering: .relaxed)) * 1024
    }

    /// The thread count now; 0 when `/proc/self/status` cannot be read.
    public static func currentThreads() -> Int {
        currentStatus().threads
    }

    /// Anonymous resident memory now (`RssAnon`), in bytes; 0 when it cannot be read.
    public static func currentAnonymousBytes() -> UInt64 {
        UInt64(currentStatus().anonymousKiB) * 1024
    }

    /// The `Threads:` and `RssAnon:` (kB) lines of `/proc/self/status`; 0 for what cannot be read.
    ///
    /// Read as bytes, as the C client's sampler does with `strncmp` and `strtol`: `String`'s
    /// `Character` view and `isNumber` would touch the standard library's grapheme-breaking and
    /// Unicode property tables, pages the measured client itself never needs (issue 37).
    private static func currentStatus() -> (threads: Int, anonymousKiB: Int) {
        guard let file = fopen("/proc/self/status", "r") else { return (0, 0) }
        defer { fclose(file) }
        var threads = 0
        var anonymous = 0
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            if let value = number(after: "Threads:", in: line) {
                threads = value
            } else if let value = number(after: "RssAnon:", in: line) {
                anonymous = value
            }
        }
        return (threads, anonymous)
    }

    /// The decimal number after `label` in a NUL-terminated `line` that starts with `label`
    /// (spaces and tabs skipped); nil when the line is another one.
    private static func number(after label: StaticString, in line: [CChar]) -> Int? {
        let count = label.utf8CodeUnitCount
        guard line.count > count else { return nil }
        let prefix = UnsafeBufferPointer(start: label.utf8Start, count: count)
        for index in 0..<count where UInt8(bitPattern: line[index]) != prefix[index] { return nil }
        var value = 0
        for byte in line[count...] {
            let digit = UInt8(bitPattern: byte)
            if digit == 0x20 || digit == 0x09 { continue }
            guard digit >= 0x30, digit <= 0x39 else { break }
            value = value * 10 + Int(digit - 0x30)
        }
        return value
    }
}

/// CPU time and peak memory of the whole process, from `getrusage`.
public struct ResourceUsage: Sendable {
    /// User plus system CPU time, in nanoseconds.
    public var cpuNanoseconds: UInt64
    /// The peak resident set size so far, in bytes (`ru_maxrss`).
    public var peakResidentBytes: UInt64

    /// The usage now.
    public static func now() -> ResourceUsage {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        func nanoseconds(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000 }
        return ResourceUsage(
            cpuNanoseconds: nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime),
            peakResidentBytes: UInt64(usage.ru_maxrss) * 1024)
    }
}
