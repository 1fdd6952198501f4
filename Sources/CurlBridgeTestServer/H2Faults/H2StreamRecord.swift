/// What an ``H2FaultServer`` received on one stream and what it did with it.
public struct H2StreamRecord: Sendable, Hashable {
    /// What the server did with a stream.
    public enum Disposition: String, Sendable, Hashable {
        /// A whole `200` response.
        case answered
        /// RST_STREAM with REFUSED_STREAM before any response.
        case refused
        /// Above a GOAWAY's last stream id: never processed, nothing sent on the stream.
        case notProcessed
        /// The fault was applied (a reset, a cut, a flood, a stall, a bad response).
        case faulted
    }

    /// Which of the server's accepted connections, counting from 0.
    public let connection: Int
    /// The stream id on that connection.
    public let streamID: UInt32
    /// The request's `:method`.
    public let method: String
    /// The request's `:path`.
    public let path: String
    /// The number of request body bytes that arrived in DATA frames.
    public let bodyBytes: Int
    /// What the server did.
    public let disposition: Disposition
}
