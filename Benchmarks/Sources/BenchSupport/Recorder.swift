import Synchronization

/// Collects what a run's requests did: each latency, the errors, the body bytes received.
/// Any thread may record; a lock keeps it simple, and costs tens of nanoseconds per request.
public final class Recorder: Sendable {
    private struct State {
        var latencies: [UInt64]
        var errors = 0
        var bytes: Int64 = 0
        var firstError: String?
    }

    private let state: Mutex<State>

    /// Creates a recorder with room for `expected` latencies.
    public init(expected: Int) {
        var latencies: [UInt64] = []
        latencies.reserveCapacity(expected)
        state = Mutex(State(latencies: latencies))
    }

    /// Records a request that succeeded after `nanoseconds`.
    public func success(nanoseconds: UInt64) {
        state.withLock { $0.latencies.append(nanoseconds) }
    }

    /// Records a request that failed; the first failure's description is kept for the log.
    public func failure(_ description: String) {
        state.withLock { state in
            state.errors += 1
            if state.firstError == nil { state.firstError = description }
        }
    }

    /// Adds `count` received body bytes.
    public func received(_ count: Int) {
        state.withLock { $0.bytes += Int64(count) }
    }

    /// The latencies, sorted, in nanoseconds.
    public var sortedLatencies: [UInt64] { state.withLock { $0.latencies }.sorted() }
    /// How many requests failed.
    public var errors: Int { state.withLock { $0.errors } }
    /// Body bytes received in all.
    public var bytes: Int64 { state.withLock { $0.bytes } }
    /// The first failure, if any.
    public var firstError: String? { state.withLock { $0.firstError } }
}

/// The value at `fraction` (0...1) of sorted `values` by the nearest-rank method; 0 when empty.
public func percentile(_ sorted: [UInt64], _ fraction: Double) -> UInt64 {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}
