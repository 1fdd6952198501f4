#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// A complete HTTP response: status, headers, body and how the transfer went.
///
/// Any status is a response, not an error; call ``validate(statusCodes:contentTypes:)`` to turn
/// unacceptable statuses into a ``RequestError``.
public struct Response: Sendable, Equatable {
    /// The fields the transfer fixes, shared by copies of the response until one of them changes
    /// (copy-on-write): a response passes through the request's state machine, its events and the
    /// caller's completion, and one reference costs less to copy than eight fields. The body and
    /// the attempts, filled in after the transfer for every response, are stored beside it, so
    /// that filling them in never copies the rest.
    private var storage: CopyOnWrite<Fields>

    /// The status code and reason phrase.
    public var status: HTTPResponse.Status {
        get { storage.value.status }
        _modify { yield &storage.value.status }
    }
    /// The header fields of the final response, as libcurl's header API reports them.
    public var headerFields: HTTPFields {
        get { storage.value.headerFields.fields }
        _modify { yield &storage.value.headerFields.fields }
    }
    /// The body, decoded from any content encoding.
    public var body: Data
    /// The URL the response came from: after redirects, the last one (the effective URL).
    public var url: String {
        get { storage.value.url }
        _modify { yield &storage.value.url }
    }
    /// The redirects followed to get here, first to last; empty when there were none.
    public var redirects: [RedirectHop] {
        get { storage.value.redirects }
        _modify { yield &storage.value.redirects }
    }
    /// The HTTP version the response used.
    public var httpVersion: HTTPVersion {
        get { storage.value.httpVersion }
        _modify { yield &storage.value.httpVersion }
    }
    /// Timings, sizes and connection facts, from curl.
    public var metrics: TransferMetrics {
        get { storage.value.metrics }
        _modify { yield &storage.value.metrics }
    }
    /// The method of the request this answers (a `HEAD` response has no body).
    public var requestMethod: HTTPRequest.Method {
        get { storage.value.requestMethod }
        _modify { yield &storage.value.requestMethod }
    }
    /// The request's `Accept` value, which ``validate(statusCodes:contentTypes:)`` checks against
    /// by default; `nil` when the request sent none of its own (curl then sends `*/*`).
    public var requestAccept: String? {
        get { storage.value.requestAccept }
        _modify { yield &storage.value.requestAccept }
    }
    /// Where the response came from with respect to the transport's ``HTTPCache``
    /// (``TransferMetrics/cacheStatus``).
    public var cacheStatus: CacheStatus { metrics.cacheStatus }
    /// Every attempt made to get this response, first to last (one, unless it was retried).
    public var attempts: [AttemptRecord]

    /// A response's stored fields.
    private struct Fields: Sendable, Equatable {
        var status: HTTPResponse.Status
        var headerFields: ResponseHeaderFields
        var url: String
        var redirects: [RedirectHop]
        var httpVersion: HTTPVersion
        var metrics: TransferMetrics
        var requestMethod: HTTPRequest.Method
        var requestAccept: String?
    }

    /// Whether two responses have the same fields.
    public static func == (lhs: Response, rhs: Response) -> Bool {
        lhs.body == rhs.body && lhs.attempts == rhs.attempts
            && (lhs.storage.sharesStorage(with: rhs.storage) || lhs.storage.value == rhs.storage.value)
    }

    /// Creates a response.
    public init(
        status: HTTPResponse.Status, headerFields: HTTPFields, body: Data, url: String,
        httpVersion: HTTPVersion, metrics: TransferMetrics,
        requestMethod: HTTPRequest.Method = .get, requestAccept: String? = nil, redirects: [RedirectHop] = []
    ) {
        self.init(
            status: status, headerFields: .fields(headerFields), body: body, url: url, httpVersion: httpVersion,
            metrics: metrics, requestMethod: requestMethod, requestAccept: requestAccept, redirects: redirects)
    }

    /// Creates a response whose fields are parsed from `headerBlock` when first read.
    init(
        status: HTTPResponse.Status, headerBlock: ResponseHeaderBlock, body: Data, url: String,
        httpVersion: HTTPVersion, metrics: TransferMetrics, requestMethod: HTTPRequest.Method, requestAccept: String?
    ) {
        self.init(
            status: status, headerFields: .block(headerBlock), body: body, url: url, httpVersion: httpVersion,
            metrics: metrics, requestMethod: requestMethod, requestAccept: requestAccept, redirects: [])
    }

    private init(
        status: HTTPResponse.Status, headerFields: ResponseHeaderFields, body: Data, url: String,
        httpVersion: HTTPVersion, metrics: TransferMetrics,
        requestMethod: HTTPRequest.Method, requestAccept: String?, redirects: [RedirectHop]
    ) {
        storage = CopyOnWrite(Fields(
            status: status, headerFields: headerFields, url: url, redirects: redirects,
            httpVersion: httpVersion, metrics: metrics, requestMethod: requestMethod, requestAccept: requestAccept))
        self.body = body
        attempts = []
    }

    /// Status, headers and HTTP version.
    var head: ResponseHead {
        ResponseHead(
            status: status, headerFields: headerFields, httpVersion: httpVersion, url: url, redirects: redirects,
            cacheStatus: cacheStatus)
    }

    /// Whether an empty body is what this response should have: a `HEAD` request, or status 204
    /// or 205 (as in Alamofire's `emptyResponseCodes` and `emptyRequestMethods`).
    public var allowsEmptyBody: Bool {
        requestMethod == .head || status.code == 204 || status.code == 205
    }
}

extension Response: CustomReflectable {
    /// The fields, as `print`, `dump` and debuggers show a response (not the box that stores them).
    public var customMirror: Mirror {
        Mirror(self, children: [
            "status": status,
            "headerFields": headerFields,
            "body": body,
            "url": url,
            "redirects": redirects,
            "httpVersion": httpVersion,
            "metrics": metrics,
            "requestMethod": requestMethod,
            "requestAccept": requestAccept as Any,
            "attempts": attempts,
        ], displayStyle: .struct)
    }
}
