import Glibc

/// Holds a body's consumer to a rate, as a reader that can only take so many bytes per second:
/// after each chunk it says how long to wait so that the bytes consumed since the first chunk
/// never run ahead of ``bytesPerSecond``. The same rule in every client (the C one has it too).
public struct ConsumerPace: Sendable {
    /// The most bytes per second the consumer takes.
    public let bytesPerSecond: Int
    private var start: UInt64?
    private var consumed: Int64 = 0

    /// A pace of `bytesPerSecond`.
    public init(bytesPerSecond: Int) {
        self.bytesPerSecond = max(1, bytesPerSecond)
    }

    /// Counts `count` bytes as consumed and returns how many nanoseconds to wait before the next
    /// chunk: zero when the consumer is behind its pace.
    public mutating func delay(afterConsuming count: Int) -> UInt64 {
        let now = monotonicNanoseconds()
        let start = self.start ?? now
        self.start = start
        consumed += Int64(count)
        let due = start + UInt64(Double(consumed) * 1e9 / Double(bytesPerSecond))
        return due > now ? due - now : 0
    }

    /// Counts `count` bytes and sleeps the calling thread until the pace allows more.
    public mutating func wait(afterConsuming count: Int) {
        sleepNanoseconds(delay(afterConsuming: count))
    }

    /// Counts `count` bytes and suspends the task until the pace allows more.
    public mutating func pause(afterConsuming count: Int) async {
        let nanoseconds = delay(afterConsuming: count)
        if nanoseconds > 0 { try? await Task.sleep(nanoseconds: nanoseconds) }
    }
}

/// Sleeps the calling thread for `nanoseconds` (resuming after signals).
public func sleepNanoseconds(_ nanoseconds: UInt64) {
    guard nanoseconds > 0 else { return }
    var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0, errno == EINTR {
        request = remaining
    }
}
