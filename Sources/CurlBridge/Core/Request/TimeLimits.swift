/// A prepared request's time limits, in the units curl takes them, and the one place that says
/// which of them applies: the connect limit while connecting (when it is the tighter), and the
/// first limit a silent wait runs into. curl enforces the connect and total limits itself, and the
/// engine the idle one (``IdleClock``); what they mean when they meet is decided here.
///
/// Converted from ``Timeouts`` once: a `Duration`'s `components` divides 128-bit attoseconds
/// (about 280 instructions), so a transport converts its own timeouts when it is made
/// (``RequestDefaults/timeLimits``), and a request that overrides none uses them as they are.
struct TimeLimits: Equatable, Sendable {
    /// The connect timeout, in milliseconds.
    var connectMilliseconds: Int?
    /// The idle timeout, in nanoseconds.
    var idleNanoseconds: UInt64?
    /// The total timeout, in milliseconds.
    var totalMilliseconds: Int?

    /// The limits of `connectMilliseconds`, `idleNanoseconds` and `totalMilliseconds` (`nil`: none).
    init(connectMilliseconds: Int? = nil, idleNanoseconds: UInt64? = nil, totalMilliseconds: Int? = nil) {
        self.connectMilliseconds = connectMilliseconds
        self.idleNanoseconds = idleNanoseconds
        self.totalMilliseconds = totalMilliseconds
    }

    /// `timeouts` converted (each rounded up to whole milliseconds, as `Duration.roundedUpMilliseconds`).
    init(_ timeouts: Timeouts) {
        connectMilliseconds = timeouts.connect?.roundedUpMilliseconds
        idleNanoseconds = timeouts.idle.map { UInt64($0.roundedUpMilliseconds) * 1_000_000 }
        totalMilliseconds = timeouts.total?.roundedUpMilliseconds
    }

    /// Whether a timeout now is the connect timeout's: the connection phase (TCP and TLS) has not
    /// finished (`connected` false) and the connect limit is the tighter one (while connecting,
    /// the smaller of connect and total applies).
    func connectLimitApplies(connected: Bool) -> Bool {
        guard !connected, let connectMilliseconds else { return false }
        return totalMilliseconds.map { connectMilliseconds <= $0 } ?? true
    }

    /// The limit a wait of `silence` with no byte moving runs into, with the error it raises:
    /// the nearer of the idle and the total limit, if `silence` is longer than it.
    func limit(reachedBySilenceOf silence: Duration) -> (limit: Duration, code: RequestError.Code)? {
        let total = totalMilliseconds.map { (limit: Duration.milliseconds($0), code: RequestError.Code.totalTimedOut) }
        let idle = idleNanoseconds.map { (limit: Duration.nanoseconds(Int64($0)), code: RequestError.Code.idleTimedOut) }
        let nearest: (limit: Duration, code: RequestError.Code)? = switch (total, idle) {
        case let (total?, idle?): idle.limit < total.limit ? idle : total
        case let (total, idle): total ?? idle
        }
        guard let nearest, silence > nearest.limit else { return nil }
        return nearest
    }
}
