/// The idle timeout of one transfer, as a value: when a byte last moved, and whether the clock
/// runs yet. The engine asks it at the loop's deadlines; it decides whether the transfer expired.
///
/// The clock starts once the connection phase is over (curl's pre-transfer moment): waiting for a
/// free connection and connecting are the connect timeout's. A transfer that a check found still
/// waiting for a connection starts its clock at the first check that finds it connected — curl's
/// connection moment of a transfer it queued for a free connection does not count from when the
/// wait ended, so it cannot be trusted then; starting late only makes the limit more lenient, once.
struct IdleClock {
    /// The limit, in nanoseconds.
    let limit: UInt64
    /// When the transfer began (`MonotonicClock` nanoseconds); curl's timings count from about then.
    private let startedAt: UInt64
    /// When a byte last moved, or the clock last restarted.
    private var lastActivity: UInt64
    /// Whether a check found the transfer still waiting for a connection.
    private var waitedForConnection = false

    /// A clock for a transfer that begins at `now`, with `limit` nanoseconds of allowed silence.
    init(limit: UInt64, now: UInt64) {
        self.limit = limit
        startedAt = now
        lastActivity = now
    }

    /// A byte moved (or the transfer resumed) at `now`. The last activity never moves back: a
    /// callback's moment may be a little earlier than one noted before it (``CallbackClock``).
    mutating func noteActivity(at now: UInt64) {
        lastActivity = max(lastActivity, now)
    }

    /// The moment the transfer expires unless a byte moves: `limit` after the later of the last
    /// movement and the connection completing `connectedAfter` nanoseconds after the start.
    func deadline(connectedAfter: UInt64) -> UInt64 {
        max(lastActivity, startedAt &+ connectedAfter) &+ limit
    }

    /// What a check finds.
    enum Verdict: Equatable {
        /// Silent for the whole limit.
        case expired
        /// Look again at this moment.
        case checkAgain(at: UInt64)
    }

    /// The check at `now`. `connectedAfter`: nanoseconds from the start to curl's pre-transfer
    /// moment, `nil` while still connecting.
    mutating func check(at now: UInt64, connectedAfter: UInt64?) -> Verdict {
        guard let connectedAfter else {
            noteActivity(at: now)
            waitedForConnection = true
            return .checkAgain(at: deadline(connectedAfter: 0))
        }
        if waitedForConnection {
            waitedForConnection = false
            noteActivity(at: now)
            return .checkAgain(at: deadline(connectedAfter: connectedAfter))
        }
        let due = deadline(connectedAfter: connectedAfter)
        return now >= due ? .expired : .checkAgain(at: due)
    }
}
