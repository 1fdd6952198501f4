import NIOHTTP1

/// A response whose body is a stretch of the byte pattern, streamed with backpressure.
struct PatternResponse {
    /// The status to send.
    var status: HTTPResponseStatus = .ok
    /// The headers to send, framing included: with a `Content-Length` the body goes out as is,
    /// without one it goes chunked on HTTP/1.1.
    var headers: HTTPHeaders
    /// The body bytes.
    var stream: PatternStream
    /// Whether the connection is closed (on HTTP/2: the stream reset) once the stream's bytes are
    /// written, instead of ending the response: for bodies cut short of their `Content-Length`.
    var closesAfterBody = false

    /// A `200` of `application/octet-stream` announcing `declaredLength` bytes, or no length
    /// when `nil`.
    init(stream: PatternStream, declaredLength: Int?) {
        self.headers = ["Content-Type": "application/octet-stream"]
        if let declaredLength {
            self.headers.add(name: "Content-Length", value: String(declaredLength))
        }
        self.stream = stream
    }
}
