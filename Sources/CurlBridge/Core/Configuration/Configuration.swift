#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Logging

/// Everything a ``Transport`` needs to know before it sends its first request.
public struct Configuration: Sendable {
    /// The URL that relative request paths resolve against; `nil` by default (every request must
    /// then use an absolute URL). As in AFHTTPSessionManager, a path without a trailing slash is
    /// treated as a directory: with `https://api.example.com/v1`, `users` is
    /// `https://api.example.com/v1/users`; a path starting with `/` replaces the base path, and an
    /// absolute URL replaces the whole base.
    public var baseURL: URL?
    /// Timeouts applied to every request unless the request overrides them; ``Timeouts/standard``
    /// by default.
    public var timeouts: Timeouts
    /// Headers sent with every request; a request's own header of the same name wins.
    /// By default a `User-Agent` naming CurlBridge and libcurl.
    public var defaultHeaders: HTTPFields
    /// How servers are verified over TLS; system CAs with verification on by default.
    public var tls: TLSConfiguration
    /// Connection limits; unlimited by default.
    public var connectionLimits: ConnectionLimits
    /// The HTTP version to ask for; ``HTTPVersionPreference/http2OverTLS`` by default.
    public var httpVersion: HTTPVersionPreference
    /// The largest response body held in memory, counted after content decoding; 64 MiB by
    /// default. A larger body fails with ``RequestError/Code/bodyTooLarge``.
    public var maximumBodySize: Int
    /// The largest response header section accepted, in bytes: every header line of the
    /// transfer (interim `1xx` heads and trailers included) as received, counted as it arrives;
    /// 256 KiB by default. A larger one fails with ``RequestError/Code/headersTooLarge`` before
    /// any body byte is read. Over HTTP/2, libcurl 7.88 holds one head in at most 128 KiB and
    /// nghttp2 takes one field of at most 64 KiB: a larger head fails with `headersTooLarge`
    /// whatever this cap, a larger field ends the connection (`connectionLost`).
    public var maximumHeaderSize: Int
    /// Whether to ask for and transparently decode gzip, deflate, brotli and zstd bodies;
    /// `true` by default.
    public var decodesContentEncoding: Bool
    /// libcurl's receive buffer per transfer (`CURLOPT_BUFFERSIZE`), the most curl reads from
    /// the socket at once; 512 KiB by default, which more than doubles throughput of large
    /// downloads over the 16 KiB curl default.
    ///
    /// This size applies to bodies streamed to a consumer and to downloads to a file. A body
    /// collected in memory (a plain `send`, an upload's response) is read with the smaller of
    /// this size and 64 KiB while the transport's last collected body was at most 64 KiB and
    /// fewer than 64 transfers are in flight, and with this size otherwise: libcurl allocates
    /// the buffer afresh for every transfer,
    /// before the body's length is known, and for small bodies a large buffer costs page faults
    /// and CPU without reading faster.
    public var receiveBufferSize: Int
    /// Where the transport logs; a logger labelled `"CurlBridge"` by default.
    public var logger: Logger
    /// How redirects are followed; ``RedirectPolicy/standard`` by default (up to 10 hops, only
    /// safe headers to another origin, no https→http). A request may bring its own.
    public var redirects: RedirectPolicy
    /// Where the transport keeps cookies; ``CookieStorage/inMemory`` by default.
    public var cookies: CookieStorage
    /// The proxies requests go through; ``ProxyConfiguration/direct`` (none, and none taken from
    /// the environment) by default.
    public var proxy: ProxyConfiguration
    /// Whether requests to `http://` URLs of any host may carry credentials — a ``Credential``, an
    /// `Authorization` header (default headers included) or user info in the URL; `false` by
    /// default, so a secret never travels readable by accident: such a request fails with
    /// ``RequestError/Code/credentialsOverPlainHTTP`` before anything is sent. This machine's
    /// loopback (exactly `localhost`, `127.0.0.0/8`, `::1`) is exempt when reached directly, not through
    /// an HTTP proxy or a Unix socket. One request can opt in with
    /// ``Request/allowingCredentialsOverPlainHTTP(_:)``.
    public var allowsCredentialsOverPlainHTTP: Bool
    /// Credentials per origin (scheme, host and port), sent only to URLs of exactly that origin
    /// — so each hop of a redirect gets its own host's credential, if any; empty by default. A
    /// request's own ``Request/credential`` or `Authorization` header takes precedence.
    public var credentials: [Credential.Origin: Credential]
    /// A Unix domain socket to connect to instead of the URL's host and port
    /// (`CURLOPT_UNIX_SOCKET_PATH`), e.g. `"/var/run/docker.sock"`; the URL's host then only
    /// names the `Host` header. `nil` by default.
    public var unixSocketPath: String?
    /// The local address or interface (and ports) connections start from; `nil` (the system
    /// chooses) by default.
    public var localBinding: LocalBinding?
    /// When failed attempts are sent again; ``RetryPolicy/none`` by default. A request may bring
    /// its own (``Request/retries(_:)``).
    public var retryPolicy: RetryPolicy
    /// How many retries the ``retryPolicy`` may add to this transport's traffic;
    /// ``RetryBudget/standard`` (20% plus 10 per 10 s) by default.
    public var retryBudget: RetryBudget
    /// Adapters and retriers every request goes through, in order, before the request's own;
    /// none by default.
    public var interceptors: [any RequestInterceptor]
    /// Monitors told about every request's lifecycle; none by default.
    public var eventMonitors: [any EventMonitor]
    /// What ``logger`` may see; secrets redacted by default.
    public var logging: LoggingOptions
    /// The HTTP cache (``cache``, which the caching tier declares), held without its type: the
    /// core only asks whether there is one.
    var cacheSlot: (any AnyObject & Sendable)?
    /// Whether finished transfers' easy handles are kept for the next ones; `nil`, the default,
    /// leaves it to the engine (curl keeps them only where libcurl makes that safe). Tests of the
    /// handle pool turn it on to exercise reuse against their own servers.
    var reusesEasyHandles: Bool?
}

/// The version of this library.
public enum CurlBridgeVersion {
    /// The version string, e.g. `"0.1.0"`.
    public static let current = "0.1.0"
}
