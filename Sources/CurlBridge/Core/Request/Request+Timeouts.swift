extension Request {
    /// This request with its own timeouts; each argument left `nil` keeps the client's value.
    ///
    /// - Parameters:
    ///   - connect: Limit on establishing the connection, TCP and TLS together.
    ///   - idle: Limit on the time without a byte sent or received.
    ///   - total: Limit on the whole request.
    public func timeout(connect: Duration? = nil, idle: Duration? = nil, total: Duration? = nil) -> Request {
        var copy = self
        copy.timeouts = copy.timeouts.overridden(by: Timeouts(connect: connect, idle: idle, total: total))
        return copy
    }
}
