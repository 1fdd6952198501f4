/// Where a response came from, with respect to the transport's ``HTTPCache``: in
/// ``TransferMetrics/cacheStatus``, ``Response/cacheStatus``, the request log and what event
/// monitors receive.
public enum CacheStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// No cache was consulted: the transport has none, the method is not `GET` or `HEAD`, the
    /// request asks for a range or is conditional itself, or its policy reloads.
    case bypassed
    /// Nothing usable was stored: the response came from the server (and may have been stored).
    case miss
    /// A fresh stored response answered, without a request to the server.
    case hit
    /// A stored response was revalidated: the server answered `304 Not Modified`, and the
    /// stored response, its headers updated, answered.
    case revalidated
    /// A stale stored response answered without revalidation, because the request allowed it
    /// (`max-stale`, ``CachePolicy/returnCacheDataElseLoad``, ``CachePolicy/returnCacheDataDontLoad``).
    case staleServed

    /// The status as the log writes it: `hit`, `miss`, `stale-served`…
    public var description: String {
        self == .staleServed ? "stale-served" : rawValue
    }
}
