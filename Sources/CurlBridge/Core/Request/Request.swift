#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
    /// The fields, shared by copies of the request until one of them changes (copy-on-write): a
    /// request is copied into every attempt, hop and event of its life, and one reference costs
    /// less to copy than eighteen fields.
    private var storage: CopyOnWrite<Fields>

    /// The HTTP method.
    public var method: HTTPRequest.Method {
        get { storage.value.method }
        _modify { yield &storage.value.method }
    }
    /// The URL as written: absolute, or a path relative to the configuration's base URL.
    public var url: String {
        get { storage.value.url }
        _modify { yield &storage.value.url }
    }
    /// Query items appended to the URL's own query, percent-encoded per RFC 3986.
    public var queryItems: [URLQueryItem] {
        get { storage.value.queryItems }
        _modify { yield &storage.value.queryItems }
    }
    /// Already-encoded query text appended after ``queryItems`` (from ``parameters(_:encoder:destination:)``).
    var encodedQueryParts: [String] {
        get { storage.value.encodedQueryParts }
        _modify { yield &storage.value.encodedQueryParts }
    }
    /// Header fields; these win over the configuration's default headers of the same name.
    public var headerFields: HTTPFields {
        get { storage.value.headerFields }
        _modify { yield &storage.value.headerFields }
    }
    /// The body, if any.
    public var body: Body? {
        get { storage.value.body }
        _modify { yield &storage.value.body }
    }
    /// Per-request timeouts; each non-`nil` field overrides the configuration's.
    public var timeouts: Timeouts {
        get { storage.value.timeouts }
        _modify { yield &storage.value.timeouts }
    }
    /// Names of headers redacted from ``curlDescription(for:revealingSecrets:)`` besides
    /// `Authorization`, `Proxy-Authorization` and `Cookie`; see ``header(_:_:sensitive:forwardable:)``.
    public var sensitiveHeaderNames: Set<HTTPField.Name> {
        get { storage.value.sensitiveHeaderNames }
        _modify { yield &storage.value.sensitiveHeaderNames }
    }

    /// Headers whose values are always treated as sensitive, besides ``sensitiveHeaderNames``:
    /// redacted from ``curlDescription(for:revealingSecrets:)`` and logs, dropped across origins.
    static let alwaysSensitiveHeaderNames: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]
    /// Names of headers that a redirect to another origin carries even under
    /// ``RedirectPolicy/CrossOriginHeaders/safeListOnly``; see ``header(_:_:sensitive:forwardable:)``.
    public var forwardableHeaderNames: Set<HTTPField.Name> {
        get { storage.value.forwardableHeaderNames }
        _modify { yield &storage.value.forwardableHeaderNames }
    }
    /// This request's redirect policy, replacing the configuration's; `nil` (the default) uses
    /// ``Configuration/redirects``.
    public var redirectPolicy: RedirectPolicy? {
        get { storage.value.redirectPolicy }
        _modify { yield &storage.value.redirectPolicy }
    }
    /// Whether the configuration's default headers are left out: set on a hop to another origin,
    /// whose headers were already filtered with the defaults merged in.
    var omitsDefaultHeaders: Bool {
        get { storage.value.omitsDefaultHeaders }
        _modify { yield &storage.value.omitsDefaultHeaders }
    }
    /// The credential sent with this request, if any (see ``credential(_:)``); it replaces any
    /// `Authorization` header field and the configuration's credential for the URL's origin.
    public var credential: Credential? {
        get { storage.value.credential }
        _modify { yield &storage.value.credential }
    }
    /// Whether this request may carry credentials over plain `http://` to a host other than the
    /// loopback; `false` by default. See ``allowingCredentialsOverPlainHTTP(_:)``.
    public var allowsCredentialsOverPlainHTTP: Bool {
        get { storage.value.allowsCredentialsOverPlainHTTP }
        _modify { yield &storage.value.allowsCredentialsOverPlainHTTP }
    }
    /// This request's own pinning, applied to every host it reaches, redirects included, in place
    /// of the configuration's ``TLSConfiguration/pins``; `nil` (the default) uses those. See
    /// ``pinning(_:)``.
    public var pinning: Pinning? {
        get { storage.value.pinning }
        _modify { yield &storage.value.pinning }
    }
    /// The first problem found while building, reported at send time.
    var problem: RequestError? {
        get { storage.value.problem }
        _modify { yield &storage.value.problem }
    }
    /// Whether the transport's cookie jar sends its cookies with this request and stores those
    /// the response sets; `true` by default. See ``cookies(_:)``.
    public var usesCookieJar: Bool {
        get { storage.value.usesCookieJar }
        _modify { yield &storage.value.usesCookieJar }
    }
    /// This request's retry policy, replacing the configuration's; `nil` (the default) uses
    /// ``Configuration/retryPolicy``.
    public var retryPolicy: RetryPolicy? {
        get { storage.value.retryPolicy }
        _modify { yield &storage.value.retryPolicy }
    }
    /// Whether the request brings a redirect or a retry policy of its own: asked as each request
    /// starts, so the two optionals are matched in place, not copied out and compared with `nil`
    /// (which goes through their types' metadata, issue 37).
    var bringsOwnPolicies: Bool {
        if case Optional.none = storage.value.redirectPolicy, case Optional.none = storage.value.retryPolicy { return false }
        return true
    }
    /// Whether the request may be retried although its method is not idempotent; see
    /// ``idempotent(key:)``.
    public var isMarkedIdempotent: Bool {
        get { storage.value.isMarkedIdempotent }
        _modify { yield &storage.value.isMarkedIdempotent }
    }
    /// Adapters and retriers for this request only, after the configuration's; see
    /// ``intercepted(by:)``.
    public var interceptors: [any RequestInterceptor] {
        get { storage.value.interceptors }
        _modify { yield &storage.value.interceptors }
    }
    /// How the request uses the transport's ``HTTPCache``; see ``cachePolicy(_:)``.
    public var cachePolicy: CachePolicy {
        get { storage.value.cachePolicy }
        _modify { yield &storage.value.cachePolicy }
    }
    /// The logger for this request, replacing the configuration's; `nil` (the default) uses
    /// ``Configuration/logger``. See ``logger(_:)``.
    public var logger: Logger? {
        get { storage.value.logger }
        _modify { yield &storage.value.logger }
    }

    /// A request's stored fields.
    private struct Fields: Sendable {
        var method: HTTPRequest.Method
        var url: String
        var queryItems: [URLQueryItem] = []
        var encodedQueryParts: [String] = []
        var headerFields: HTTPFields = HTTPFields()
        var body: Body?
        var timeouts: Timeouts = Timeouts()
        var sensitiveHeaderNames: Set<HTTPField.Name> = []
        var forwardableHeaderNames: Set<HTTPField.Name> = []
        var redirectPolicy: RedirectPolicy?
        var omitsDefaultHeaders: Bool = false
        var credential: Credential?
        var allowsCredentialsOverPlainHTTP = false
        var pinning: Pinning?
        var problem: RequestError?
        var usesCookieJar: Bool = true
        var retryPolicy: RetryPolicy?
        var isMarkedIdempotent: Bool = false
        var interceptors: [any RequestInterceptor] = []
        var logger: Logger?
        var cachePolicy: CachePolicy = .useProtocolCachePolicy
    }

    /// Creates a request with a standard or custom method.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - url: An absolute URL, or a path relative to the configuration's base URL.
    public init(method: HTTPRequest.Method, url: String) {
        storage = CopyOnWrite(Fields(method: method, url: url))
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

extension Request: CustomReflectable {
    /// The fields, as `print`, `dump` and debuggers show a request (not the box that stores them).
    public var customMirror: Mirror {
        Mirror(self, children: [
            "method": method,
            "url": url,
            "queryItems": queryItems,
            "encodedQueryParts": encodedQueryParts,
            "headerFields": headerFields,
            "body": body as Any,
            "timeouts": timeouts,
            "sensitiveHeaderNames": sensitiveHeaderNames,
            "forwardableHeaderNames": forwardableHeaderNames,
            "redirectPolicy": redirectPolicy as Any,
            "omitsDefaultHeaders": omitsDefaultHeaders,
            "credential": credential as Any,
            "problem": problem as Any,
            "usesCookieJar": usesCookieJar,
            "retryPolicy": retryPolicy as Any,
            "cachePolicy": cachePolicy,
            "isMarkedIdempotent": isMarkedIdempotent,
            "interceptors": interceptors,
            "logger": logger as Any,
        ], displayStyle: .struct)
    }
}
