import HTTPTypes

/// The head of a response — status, headers, version — delivered before its body when a body is
/// streamed (``AsyncClient/stream(_:bufferLimits:)`` and the other clients' `stream` verbs).
public struct ResponseHead: Sendable, Equatable {
    /// The status code and reason phrase.
    public var status: HTTPResponse.Status
    /// The header fields, as libcurl's header API reports them.
    public var headerFields: HTTPFields
    /// The HTTP version the response used.
    public var httpVersion: HTTPVersion

    /// Creates a response head.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields, httpVersion: HTTPVersion) {
        self.status = status
        self.headerFields = headerFields
        self.httpVersion = httpVersion
    }
}
