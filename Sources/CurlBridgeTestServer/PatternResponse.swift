import NIOHTTP1

/// A response whose body is a stretch of the byte pattern, streamed with backpressure.
struct PatternResponse {
    /// The status to send.
    var status: HTTPResponseStatus
    /// The headers to send, framing included: with a `Content-Length` the body goes out as is,
    /// without one it goes chunked on HTTP/1.1.
    var headers: HTTPHeaders
    /// The body bytes.
    var stream: PatternStream
    /// What happens once the stream's bytes are written.
    var ending: Ending

    /// How a pattern body ends.
    enum Ending {
        /// The response ends normally.
        case complete
        /// The connection is closed (on HTTP/2: the stream reset): for bodies cut short of their
        /// `Content-Length`.
        case close
        /// Nothing more is sent and the connection stays open: a server that stalls mid-body.
        case stall
    }

    /// A response of exactly these parts.
    init(status: HTTPResponseStatus = .ok, headers: HTTPHeaders, stream: PatternStream, ending: Ending = .complete) {
        self.status = status
        self.headers = headers
        self.stream = stream
        self.ending = ending
    }

    /// A `200` of `application/octet-stream` announcing `declaredLength` bytes, or no length
    /// when `nil`.
    static func octets(_ stream: PatternStream, declaredLength: Int?) -> PatternResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
        if let declaredLength {
            headers.add(name: "Content-Length", value: String(declaredLength))
        }
        return PatternResponse(headers: headers, stream: stream)
    }
}
