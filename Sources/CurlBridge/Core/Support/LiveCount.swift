import Synchronization

/// How many instances of a type exist in the process, for leak checks in tests and soaks: each
/// holds a ``Member``, which counts itself while it exists — no allocation of its own, and
/// uncounted exactly once however its holder goes (released, or a throwing initializer's stored
/// properties destroyed).
final class LiveCount: Sendable {
    private let count = Atomic<Int>(0)

    /// The number of members now.
    var value: Int { count.load(ordering: .relaxed) }

    /// One counted instance: a stored property of the instance it counts.
    struct Member: ~Copyable {
        private let owner: LiveCount

        /// Counts one more member of `owner` until this value is destroyed.
        init(of owner: LiveCount) {
            self.owner = owner
            owner.count.add(1, ordering: .relaxed)
        }

        deinit {
            owner.count.subtract(1, ordering: .relaxed)
        }
    }
}
