import Glibc
import Synchronization

/// Samples the process's thread count from `/proc/self/status` every few milliseconds on a
/// thread of its own, keeping the peak; the sampler's own thread is not counted.
public final class ThreadSampler: Sendable {
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)
    private let interval: UInt32

    /// Starts sampling every `intervalMicroseconds` (5 ms by default).
    public init(intervalMicroseconds: UInt32 = 5_000) {
        interval = intervalMicroseconds
        peak.store(Self.currentThreads(), ordering: .relaxed)
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
            let threads = Self.currentThreads() - 1
            _ = peak.max(threads, ordering: .relaxed)
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
        _ = peak.max(Self.currentThreads() - (finished.load(ordering: .acquiring) ? 0 : 1), ordering: .relaxed)
        return peak.load(ordering: .relaxed)
    }

    /// The `Threads:` line of `/proc/self/status`; 0 when it cannot be read.
    public static func currentThreads() -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("Threads:") {
                return Int(String(text.filter(\.isNumber))) ?? 0
            }
        }
        return 0
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
