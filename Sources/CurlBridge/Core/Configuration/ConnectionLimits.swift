/// Limits on the connections one transport opens, and how long they may be reused. `0` (or
/// `nil` for the ages) means unlimited.
public struct ConnectionLimits: Sendable, Hashable {
    /// Most connections open at once, over all hosts (`CURLMOPT_MAX_TOTAL_CONNECTIONS`); `0` by default.
    public var total: Int
    /// Most connections open at once to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`); `0` by default.
    /// Requests beyond the limit wait for a free connection (or share one, over HTTP/2).
    public var perHost: Int
    /// Most idle connections kept for reuse (`CURLMOPT_MAXCONNECTS`); `0` lets curl choose.
    public var idleCached: Int
    /// How long after it was opened a connection may still be reused for a new request
    /// (`CURLOPT_MAXLIFETIME_CONN`), for servers behind load balancers that must see clients move;
    /// `nil` (no limit) by default. Counted in whole seconds, as curl does (a shorter duration
    /// counts as one second): a connection is reused while its age, rounded down to whole
    /// seconds, does not exceed the limit. A request in flight is never cut.
    public var maximumLifetime: Duration?
    /// How long a connection may sit idle in the pool and still be reused (`CURLOPT_MAXAGE_CONN`);
    /// `nil` keeps curl's default of 118 seconds. Counted in whole seconds like ``maximumLifetime``.
    public var maximumIdleTime: Duration?

    /// Creates connection limits; all unlimited by default (idle connections: curl's 118 seconds).
    public init(
        total: Int = 0, perHost: Int = 0, idleCached: Int = 0,
        maximumLifetime: Duration? = nil, maximumIdleTime: Duration? = nil
    ) {
        self.total = total
        self.perHost = perHost
        self.idleCached = idleCached
        self.maximumLifetime = maximumLifetime
        self.maximumIdleTime = maximumIdleTime
    }
}
