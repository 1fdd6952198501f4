import HTTPTypes

/// The head of a response — status, headers, version — delivered before its body when a body is
/// streamed (``AsyncClient/stream(_:bufferLimits:progress:)`` and the other clients' `stream` verbs).
public struct ResponseHead: Sendable, Equatable {
    /// The status code and reason phrase.
    public var status: HTTPResponse.Status
    /// The header fields, as libcurl's header API reports them.
    public var headerFields: HTTPFields
    /// The HTTP version the response used.
    public var httpVersion: HTTPVersion
    /// The URL the response came from: after redirects, the last one.
    public var url: String
    /// The redirects followed to get here, first to last; empty when there were none.
    public var redirects: [RedirectHop]
    /// Where the response comes from with respect to the transport's ``HTTPCache``, known from
    /// the head on (``CacheStatus/bypassed`` when there is none).
    public var cacheStatus: CacheStatus

    /// Creates a response head.
    public init(
        status: HTTPResponse.Status, headerFields: HTTPFields, httpVersion: HTTPVersion, url: String,
        redirects: [RedirectHop] = [], cacheStatus: CacheStatus = .bypassed
    ) {
        self.cacheStatus = cacheStatus
        self.status = status
        self.headerFields = headerFields
        self.httpVersion = httpVersion
        self.url = url
        self.redirects = redirects
    }
}
