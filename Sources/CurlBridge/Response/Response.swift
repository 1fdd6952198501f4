import Foundation
import HTTPTypes

/// A complete HTTP response: status, headers, body and how the transfer went.
///
/// Any status is a response, not an error; call ``validate(statusCodes:)`` to turn
/// unacceptable statuses into a ``RequestError``.
public struct Response: Sendable, Equatable {
    /// The status code and reason phrase.
    public var status: HTTPResponse.Status
    /// The header fields of the final response, as libcurl's header API reports them.
    public var headerFields: HTTPFields
    /// The body, decoded from any content encoding.
    public var body: Data
    /// The URL the response came from.
    public var url: String
    /// The HTTP version the response used.
    public var httpVersion: HTTPVersion
    /// Timings, sizes and connection facts, from curl.
    public var metrics: TransferMetrics

    /// Creates a response.
    public init(
        status: HTTPResponse.Status, headerFields: HTTPFields, body: Data, url: String,
        httpVersion: HTTPVersion, metrics: TransferMetrics
    ) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.url = url
        self.httpVersion = httpVersion
        self.metrics = metrics
    }

    /// The body decoded as UTF-8 text (invalid bytes become U+FFFD).
    public var text: String { String(decoding: body, as: UTF8.self) }
}
