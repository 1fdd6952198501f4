/// Limits on the connections one transport opens. `0` means unlimited.
public struct ConnectionLimits: Sendable, Hashable {
    /// Most connections open at once, over all hosts (`CURLMOPT_MAX_TOTAL_CONNECTIONS`); `0` by default.
    public var total: Int
    /// Most connections open at once to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`); `0` by default.
    /// Requests beyond the limit wait for a free connection (or share one, over HTTP/2).
    public var perHost: Int
    /// Most idle connections kept for reuse (`CURLMOPT_MAXCONNECTS`); `0` lets curl choose.
    public var idleCached: Int

    /// Creates connection limits; all unlimited by default.
    public init(total: Int = 0, perHost: Int = 0, idleCached: Int = 0) {
        self.total = total
        self.perHost = perHost
        self.idleCached = idleCached
    }
}
