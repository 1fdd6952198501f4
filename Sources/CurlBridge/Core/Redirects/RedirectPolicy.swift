/// How redirects are followed: how many hops, which headers cross to another origin, and whether
/// a redirect may leave TLS. Set client-wide on ``Configuration/redirects`` and per request with
/// ``Request/redirects(_:)``.
///
/// CurlBridge follows redirects itself (curl's `CURLOPT_FOLLOWLOCATION` stays off), one curl
/// transfer per hop, with the same body caps, TLS settings, pins and total deadline on every hop.
/// Defaults are stricter than curl's, URLSession's and AFNetworking's: a hop to another origin
/// (scheme, host or port) carries only headers known to be harmless, never credentials, and a
/// redirect from https to http is refused.
///
/// ```swift
/// // Up to 5 hops, and let custom headers (but never credentials) follow to other origins.
/// let policy = RedirectPolicy(maximumHops: 5, crossOriginHeaders: .allExceptSensitive)
/// ```
public struct RedirectPolicy: Sendable {
    /// Which of the request's headers a hop to another origin carries.
    public enum CrossOriginHeaders: Sendable, Hashable {
        /// Only ``RedirectPolicy/crossOriginSafeHeaders`` and headers marked forwardable with
        /// ``Request/header(_:_:sensitive:forwardable:)``; everything else is dropped, because
        /// secrets often travel in custom headers such as `X-Api-Key`. The default.
        case safeListOnly
        /// Every header except credentials (`Authorization`, `Proxy-Authorization`, `Cookie`) and
        /// headers marked sensitive: what curl, URLSession and most clients do.
        case allExceptSensitive
    }

    /// Whether a redirect is followed at all; `true` by default. `false` returns the 3xx as the
    /// response (``none``).
    public var followsRedirects: Bool
    /// The most redirects followed for one request; a response asking for one more fails with
    /// ``RequestError/Code/tooManyRedirects``, as `curl -L --max-redirs N` does — so `0` fails on
    /// the first redirect. To get a 3xx back as the response instead, use ``none``.
    public var maximumHops: Int
    /// Which headers a hop to another origin carries; ``CrossOriginHeaders/safeListOnly`` by default.
    public var crossOriginHeaders: CrossOriginHeaders
    /// Whether a redirect from `https` to plain `http` is followed; `false` by default, when it
    /// fails with ``RequestError/Code/insecureRedirect``. Turning it on exposes the next request
    /// (and the response) to anyone on the network path.
    public var allowsDowngradeToPlainHTTP: Bool
    /// Whether a chain may revisit a method and URL it already requested (a loop); `false` by
    /// default, when a loop fails with ``RequestError/Code/tooManyRedirects`` as soon as it closes.
    /// Turn on for servers that redirect to the same URL after setting a cookie.
    public var allowsRevisiting: Bool
    /// Decides each hop before it is followed: follow, stop, or follow a modified request. `nil` by
    /// default (follow). Called on whichever thread drives the transport (its queue, or a blocking
    /// caller's own thread): return quickly, never block, never wait for a request of the same
    /// transport.
    public var handler: RedirectHandler?

    /// Creates a policy; every parameter has the default documented on its property.
    public init(
        followsRedirects: Bool = true,
        maximumHops: Int = 10,
        crossOriginHeaders: CrossOriginHeaders = .safeListOnly,
        allowsDowngradeToPlainHTTP: Bool = false,
        allowsRevisiting: Bool = false,
        handler: RedirectHandler? = nil
    ) {
        self.followsRedirects = followsRedirects
        self.maximumHops = maximumHops
        self.crossOriginHeaders = crossOriginHeaders
        self.allowsDowngradeToPlainHTTP = allowsDowngradeToPlainHTTP
        self.allowsRevisiting = allowsRevisiting
        self.handler = handler
    }

    /// Up to 10 hops, safe headers only across origins, no https→http: the default.
    public static let standard = RedirectPolicy()

    /// Follows no redirect: a 3xx response is returned as it is (like
    /// `willPerformHTTPRedirection` returning `nil`).
    public static let none = RedirectPolicy(followsRedirects: false)

    /// The headers a hop to another origin keeps under ``CrossOriginHeaders/safeListOnly``: content
    /// negotiation, caching validators, ranges and the user agent, none of which carries a secret.
    /// `Content-Type` and `Content-Language` only travel when the body does.
    public static let crossOriginSafeHeaders: Set<String> = [
        "accept", "accept-encoding", "accept-language", "cache-control", "content-language", "content-type",
        "if-match", "if-modified-since", "if-none-match", "if-range", "if-unmodified-since", "pragma", "range",
        "user-agent",
    ]
}

/// Decides a redirect hop; see ``RedirectPolicy/handler``.
public typealias RedirectHandler = @Sendable (RedirectContext) -> RedirectAction
