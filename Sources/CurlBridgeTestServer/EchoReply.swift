import Foundation

/// What the `/echo` and `/delay/ms` routes answer: a description of the request as the server
/// received it, encoded as JSON.
public struct EchoReply: Codable, Sendable, Equatable {
    /// The request method, e.g. `"GET"`.
    public var method: String
    /// The request path without the query, as received (still percent-encoded).
    public var path: String
    /// The raw query string as received (without `?`), or `nil` if the target had no `?`.
    public var query: String?
    /// The request headers as `[name, value]` pairs in received order; names as received
    /// (lowercase for HTTP/2, which also reports `:authority` as a `host` header).
    public var headers: [[String]]
    /// The received body bytes, base64-encoded.
    public var body: String
    /// The number of received body bytes.
    public var bodyLength: Int
    /// The protocol version: `"1.1"` (or `"1.0"`) for HTTP/1, `"2"` for HTTP/2.
    public var httpVersion: String
    /// The server-wide number of the TCP connection that carried the request; equal for all
    /// requests on one keep-alive connection and all streams of one HTTP/2 connection.
    public var connectionID: Int
    /// The client's IP address as the server saw it (`nil` over a Unix domain socket).
    public var clientAddress: String?
}

extension EchoReply {
    /// Describes `request`.
    init(describing request: ReceivedRequest) {
        self.init(
            method: request.head.method.rawValue,
            path: request.path,
            query: request.query,
            headers: request.head.headers.map { [$0.name, $0.value] },
            body: Data(request.body.readableBytesView).base64EncodedString(),
            bodyLength: request.body.readableBytes,
            httpVersion: request.httpVersion,
            connectionID: request.connectionID,
            clientAddress: request.clientAddress
        )
    }
}
