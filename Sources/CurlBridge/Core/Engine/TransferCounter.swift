import Synchronization

/// A count an engine keeps on its loop and any thread may read: its transfers in flight, or
/// those begun on a reused easy handle. The transport keeps the engine's counters, so reading them
/// from another thread never touches the engine, which is the loop's.
///
/// A counter may include another (`adding`): a caching engine's in-flight count is its playbacks
/// plus what its inner engine has in flight.
final class TransferCounter: Sendable {
    /// This counter's own part.
    private let count = Atomic<Int>(0)
    /// The counter whose value is added to this one's, if any.
    private let added: TransferCounter?

    /// A counter at zero, whose value includes `added`'s.
    init(adding added: TransferCounter? = nil) {
        self.added = added
    }

    /// This counter's own part, without the counter it adds.
    var own: Int { count.load(ordering: .relaxed) }

    /// The count: its own part plus the added counter's.
    var value: Int { own + (added?.value ?? 0) }

    /// Adds one to its own part.
    func increment() { count.add(1, ordering: .relaxed) }

    /// Takes one from its own part.
    func decrement() { count.subtract(1, ordering: .relaxed) }
}
