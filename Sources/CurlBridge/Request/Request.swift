import Foundation
import HTTPTypes
import Logging

/// An HTTP request, built fluently and sent by any of the three clients.
///
/// A `Request` is a plain `Sendable` value. Builder methods never throw: a problem found while
/// building — an invalid method or header, a body that fails to encode — is kept inside the
/// request and reported when it is sent, as the same ``RequestError`` by every client, before
/// anything reaches the network.
///
/// ```swift
/// let request = Request.post("users")
///     .header("X-Trace", "abc")
///     .query("dryRun", "true")
///     .json(newUser)
///     .timeout(total: .seconds(5))
/// ```
public struct Request: Sendable {
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The URL as written: absolute, or a path relative to the configuration's base URL.
    public var url: String
    /// Query items appended to the URL's own query, percent-encoded per RFC 3986.
    public var queryItems: [URLQueryItem]
    /// Already-encoded query text appended after ``queryItems`` (from ``parameters(_:encoder:destination:)``).
    var encodedQueryParts: [String]
    /// Header fields; these win over the configuration's default headers of the same name.
    public var headerFields: HTTPFields
    /// The body, if any.
    public var body: Body?
    /// Per-request timeouts; each non-`nil` field overrides the configuration's.
    public var timeouts: Timeouts
    /// Names of headers redacted from ``curlDescription(for:revealingSecrets:)`` besides
    /// `Authorization`, `Proxy-Authorization` and `Cookie`; see ``header(_:_:sensitive:forwardable:)``.
    public var sensitiveHeaderNames: Set<HTTPField.Name>
    /// Names of headers that a redirect to another origin carries even under
    /// ``RedirectPolicy/CrossOriginHeaders/safeListOnly``; see ``header(_:_:sensitive:forwardable:)``.
    public var forwardableHeaderNames: Set<HTTPField.Name>
    /// This request's redirect policy, replacing the configuration's; `nil` (the default) uses
    /// ``Configuration/redirects``.
    public var redirectPolicy: RedirectPolicy?
    /// Whether the configuration's default headers are left out: set on a hop to another origin,
    /// whose headers were already filtered with the defaults merged in.
    var omitsDefaultHeaders: Bool
    /// The credential sent with this request, if any (see ``credential(_:)``); it replaces any
    /// `Authorization` header field and the configuration's credential for the URL's origin.
    public var credential: Credential?
    /// The first problem found while building, reported at send time.
    var problem: RequestError?
    /// Whether the transport's cookie jar sends its cookies with this request and stores those
    /// the response sets; `true` by default. See ``cookies(_:)``.
    public var usesCookieJar: Bool
    /// This request's retry policy, replacing the configuration's; `nil` (the default) uses
    /// ``Configuration/retryPolicy``.
    public var retryPolicy: RetryPolicy?
    /// Whether the request may be retried although its method is not idempotent; see
    /// ``idempotent(key:)``.
    public var isMarkedIdempotent: Bool
    /// Adapters and retriers for this request only, after the configuration's; see
    /// ``intercepted(by:)``.
    public var interceptors: [any RequestInterceptor]
    /// The logger for this request, replacing the configuration's; `nil` (the default) uses
    /// ``Configuration/logger``. See ``logger(_:)``.
    public var logger: Logger?

    /// Creates a request with a standard or custom method.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - url: An absolute URL, or a path relative to the configuration's base URL.
    public init(method: HTTPRequest.Method, url: String) {
        self.method = method
        self.url = url
        self.queryItems = []
        self.encodedQueryParts = []
        self.headerFields = HTTPFields()
        self.body = nil
        self.timeouts = Timeouts()
        self.sensitiveHeaderNames = []
        self.forwardableHeaderNames = []
        self.redirectPolicy = nil
        self.omitsDefaultHeaders = false
        self.credential = nil
        self.problem = nil
        self.usesCookieJar = true
        self.retryPolicy = nil
        self.isMarkedIdempotent = false
        self.interceptors = []
        self.logger = nil
    }

    /// Creates a request with a method given by name, such as `"PROPFIND"`.
    ///
    /// A name that is not a valid HTTP token (empty, or containing a space, CR, LF or NUL) is
    /// reported at send time as ``RequestError/Code/invalidMethod``.
    public init(method name: String, url: String) {
        if let method = HTTPRequest.Method(name) {
            self.init(method: method, url: url)
        } else {
            self.init(method: .get, url: url)
            problem = RequestError(
                .invalidMethod, "method \(name.debugDescription) is not a valid HTTP token", url: url)
        }
    }

    /// A `GET` request.
    public static func get(_ url: String) -> Request { Request(method: .get, url: url) }
    /// A `HEAD` request.
    public static func head(_ url: String) -> Request { Request(method: .head, url: url) }
    /// A `POST` request.
    public static func post(_ url: String) -> Request { Request(method: .post, url: url) }
    /// A `PUT` request.
    public static func put(_ url: String) -> Request { Request(method: .put, url: url) }
    /// A `PATCH` request.
    public static func patch(_ url: String) -> Request { Request(method: .patch, url: url) }
    /// A `DELETE` request.
    public static func delete(_ url: String) -> Request { Request(method: .delete, url: url) }
    /// An `OPTIONS` request.
    public static func options(_ url: String) -> Request { Request(method: .options, url: url) }

    /// This request with its first building problem recorded (later problems are dropped: the
    /// first one is what the caller needs to fix).
    func failing(_ code: RequestError.Code, _ message: String, underlying: (any Error & Sendable)? = nil) -> Request {
        var copy = self
        if copy.problem == nil {
            copy.problem = RequestError(code, message, method: method, url: url, underlying: underlying)
        }
        return copy
    }
}
