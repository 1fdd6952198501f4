/// When curl's progress counters are worth reporting, as a value: they moved (which also tells
/// the idle clock that the transfer is alive), and the last report is at least
/// ``TransferProgress/minimumInterval`` old.
struct ProgressThrottle {
    private static let interval = UInt64(TransferProgress.minimumInterval.roundedUpMilliseconds) * 1_000_000

    private var lastSent: Int64 = 0
    private var lastReceived: Int64 = 0
    /// When progress was last reported (`MonotonicClock` nanoseconds).
    private var lastReport: UInt64 = 0

    /// What curl's progress call with these counters means at `now`.
    mutating func note(sent: Int64, received: Int64, at now: UInt64) -> (moved: Bool, report: Bool) {
        let moved = sent != lastSent || received != lastReceived
        if moved {
            lastSent = sent
            lastReceived = received
        }
        guard now &- lastReport >= Self.interval else { return (moved, false) }
        lastReport = now
        return (moved, true)
    }
}
