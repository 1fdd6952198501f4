/// A request's ``Timeouts`` in the units curl takes them, converted once: a `Duration`'s
/// `components` divides 128-bit attoseconds (about 280 instructions), so a transport converts
/// its own timeouts when it is made, and a request that overrides none uses them as they are.
struct CurlTimeoutLimits: Sendable {
    /// Connect timeout in milliseconds, `nil` for none.
    let connectMilliseconds: Int?
    /// Idle timeout in nanoseconds, `nil` for none.
    let idleNanoseconds: UInt64?
    /// Total timeout in milliseconds, `nil` for none.
    let totalMilliseconds: Int?

    /// `timeouts` converted (each rounded up to whole milliseconds, as `Duration.roundedUpMilliseconds`).
    init(_ timeouts: Timeouts) {
        connectMilliseconds = timeouts.connect?.roundedUpMilliseconds
        idleNanoseconds = timeouts.idle.map { UInt64($0.roundedUpMilliseconds) * 1_000_000 }
        totalMilliseconds = timeouts.total?.roundedUpMilliseconds
    }
}
