
/// A transport's running count of requests and retries against its ``RetryBudget``: a sliding
/// window of ten slots, each a tenth of the window long, so old traffic drops out gradually.
final class RetryBudgetLedger: Sendable {
    private struct Slot {
        /// Which tenth of the window (counted from the clock's origin) the counts belong to.
        var index: UInt64 = 0
        var requests = 0
        var retries = 0
    }

    private static let slotCount = 10

    private let budget: RetryBudget
    /// The length of one slot, in nanoseconds.
    private let slotLength: UInt64
    private let slots = PosixLock([Slot](repeating: Slot(), count: RetryBudgetLedger.slotCount))

    /// Creates a ledger for `budget`.
    init(_ budget: RetryBudget) {
        self.budget = budget
        let window = budget.window.components
        let nanoseconds = UInt64(max(0, window.seconds)) &* 1_000_000_000 &+ UInt64(max(0, window.attoseconds / 1_000_000_000))
        slotLength = max(1, nanoseconds / UInt64(Self.slotCount))
    }

    /// Counts a request started under a retrying policy, at `now` (`MonotonicClock` nanoseconds).
    func recordRequest(now: UInt64) {
        let index = now / slotLength
        slots.withLock { slots in
            let position = Self.claim(index, in: &slots)
            slots[position].requests += 1
        }
    }

    /// Takes one retry from the budget if it has one left, at `now`.
    ///
    /// - Returns: Whether the retry may be sent.
    func withdrawRetry(now: UInt64) -> Bool {
        let index = now / slotLength
        return slots.withLock { slots in
            var requests = 0
            var retries = 0
            for slot in slots where index - min(index, slot.index) < UInt64(Self.slotCount) {
                requests += slot.requests
                retries += slot.retries
            }
            let allowed = Double(budget.minimumRetries) + budget.ratio * Double(requests)
            guard Double(retries) < allowed else { return false }
            let position = Self.claim(index, in: &slots)
            slots[position].retries += 1
            return true
        }
    }

    /// The position of `index`'s slot, emptied first if it still held an older tenth's counts.
    private static func claim(_ index: UInt64, in slots: inout [Slot]) -> Int {
        let position = Int(index % UInt64(slotCount))
        if slots[position].index != index { slots[position] = Slot(index: index) }
        return position
    }
}
