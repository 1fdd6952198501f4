/// The three timeouts a request can have. `nil` means "no limit" in a resolved value, and
/// "use the client's value" in a request's override.
///
/// - ``connect``: establishing the connection, TCP and TLS handshake together.
/// - ``idle``: the longest time without a single byte sent or received, counted from the start
///   of the transfer (like `URLSessionConfiguration.timeoutIntervalForRequest`). A transfer that
///   a streaming consumer has paused is not idle.
/// - ``total``: the whole request, from start to the last body byte
///   (like `timeoutIntervalForResource`).
public struct Timeouts: Sendable, Hashable {
    /// Limit on establishing the connection (TCP connect plus TLS handshake).
    public var connect: Duration?
    /// Limit on the time without any byte sent or received.
    public var idle: Duration?
    /// Limit on the whole request.
    public var total: Duration?

    /// Creates timeouts; each `nil` by default.
    public init(connect: Duration? = nil, idle: Duration? = nil, total: Duration? = nil) {
        self.connect = connect
        self.idle = idle
        self.total = total
    }

    /// The transport's defaults: 30 s to connect, 60 s idle, no total limit.
    public static let standard = Timeouts(connect: .seconds(30), idle: .seconds(60), total: nil)

    /// These timeouts with every non-`nil` field of `overrides` taking precedence.
    func overridden(by overrides: Timeouts) -> Timeouts {
        Timeouts(
            connect: overrides.connect ?? connect,
            idle: overrides.idle ?? idle,
            total: overrides.total ?? total
        )
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so that a positive duration never becomes 0 (no limit, to curl).
    var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(clamping: max(millis, 1))
    }
}
