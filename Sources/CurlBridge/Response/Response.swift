import Foundation
import HTTPTypes

/// A complete HTTP response: status, headers, body and how the transfer went.
///
/// Any status is a response, not an error; call ``validate(statusCodes:contentTypes:)`` to turn
/// unacceptable statuses into a ``RequestError``.
public struct Response: Sendable, Equatable {
    /// The status code and reason phrase.
    public var status: HTTPResponse.Status
    /// The header fields of the final response, as libcurl's header API reports them.
    public var headerFields: HTTPFields
    /// The body, decoded from any content encoding.
    public var body: Data
    /// The URL the response came from: after redirects, the last one (the effective URL).
    public var url: String
    /// The redirects followed to get here, first to last; empty when there were none.
    public var redirects: [RedirectHop]
    /// The HTTP version the response used.
    public var httpVersion: HTTPVersion
    /// Timings, sizes and connection facts, from curl.
    public var metrics: TransferMetrics
    /// The method of the request this answers (a `HEAD` response has no body).
    public var requestMethod: HTTPRequest.Method
    /// The request's `Accept` value, which ``validate(statusCodes:contentTypes:)`` checks against
    /// by default; `nil` when the request sent none of its own (curl then sends `*/*`).
    public var requestAccept: String?
    /// Every attempt made to get this response, first to last (one, unless it was retried).
    public var attempts: [AttemptRecord]

    /// Creates a response.
    public init(
        status: HTTPResponse.Status, headerFields: HTTPFields, body: Data, url: String,
        httpVersion: HTTPVersion, metrics: TransferMetrics,
        requestMethod: HTTPRequest.Method = .get, requestAccept: String? = nil, redirects: [RedirectHop] = []
    ) {
        self.redirects = redirects
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.url = url
        self.httpVersion = httpVersion
        self.metrics = metrics
        self.requestMethod = requestMethod
        self.requestAccept = requestAccept
        self.attempts = []
    }

    /// Status, headers and HTTP version.
    var head: ResponseHead {
        ResponseHead(status: status, headerFields: headerFields, httpVersion: httpVersion, url: url, redirects: redirects)
    }

    /// Whether an empty body is what this response should have: a `HEAD` request, or status 204
    /// or 205 (as in Alamofire's `emptyResponseCodes` and `emptyRequestMethods`).
    public var allowsEmptyBody: Bool {
        requestMethod == .head || status.code == 204 || status.code == 205
    }
}
