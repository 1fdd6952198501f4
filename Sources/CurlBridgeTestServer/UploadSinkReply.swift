/// What the `/upload-sink` route answers: what it counted and hashed of a request body that it
/// did not keep, encoded as JSON.
public struct UploadSinkReply: Codable, Sendable, Equatable {
    /// The request method, e.g. `"PUT"`.
    public var method: String
    /// The number of body bytes received.
    public var length: Int
    /// The SHA-256 of the received body bytes, in lowercase hex.
    public var sha256: String
    /// The request's `Content-Length` header as received, or `nil` (JSON `null`) if it had none.
    public var contentLength: String?
    /// The request's `Transfer-Encoding` header (several joined with `", "`), or `nil` (JSON
    /// `null`) if it had none.
    public var transferEncoding: String?
    /// The server-wide number of the TCP connection that carried the request, as in
    /// ``EchoReply/connectionID``.
    public var connectionID: Int
    /// The protocol version: `"1.1"` (or `"1.0"`) for HTTP/1, `"2"` for HTTP/2.
    public var httpVersion: String

    /// Encodes every property, the absent headers as `null` rather than leaving them out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.method, forKey: .method)
        try container.encode(self.length, forKey: .length)
        try container.encode(self.sha256, forKey: .sha256)
        try container.encode(self.contentLength, forKey: .contentLength)
        try container.encode(self.transferEncoding, forKey: .transferEncoding)
        try container.encode(self.connectionID, forKey: .connectionID)
        try container.encode(self.httpVersion, forKey: .httpVersion)
    }
}
