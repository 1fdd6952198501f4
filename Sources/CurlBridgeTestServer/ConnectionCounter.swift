import Synchronization

/// Hands out the server-wide connection numbers reported as ``EchoReply/connectionID``:
/// 1, 2, 3, … one per accepted HTTP connection.
final class ConnectionCounter: Sendable {
    private let lastIssued = Atomic<Int>(0)

    /// Returns the number for a newly accepted connection.
    func next() -> Int {
        self.lastIssued.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
