import HTTPTypes

/// A response whose head has arrived and whose body streams in as it is read.
///
/// A non-2xx status is not an error: check ``head`` before reading, as with ``Response``.
public struct StreamingResponse: Sendable {
    /// Status, headers and HTTP version.
    public let head: ResponseHead
    /// The body, chunk by chunk.
    public let body: ResponseBody

    /// The status.
    public var status: HTTPResponse.Status { head.status }
    /// The header fields.
    public var headerFields: HTTPFields { head.headerFields }
}
