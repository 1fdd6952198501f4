import Crypto
import NIOCore

/// The `/upload-sink` route: takes in a request body as it arrives, keeping only its length and
/// SHA-256, and answers the JSON ``UploadSinkReply``, so an upload of any size takes constant
/// memory.
///
/// A state machine for one request: ``RequestHandler`` feeds it the body as it arrives and carries
/// out the ``Action`` each step returns, then sends ``answer()``.
struct UploadSink {
    /// What the handler must do after a step.
    enum Action: Equatable {
        /// Keep receiving.
        case proceed
        /// Close the connection (on HTTP/2: reset the stream) at once, without answering.
        case close
        /// Stop sending on the connection at once, without answering, and drop what the client
        /// still sends until it closes too. The client sees its request end in an empty reply
        /// however far its upload got; a full close with unread bytes would make the kernel send
        /// a reset, which can fail the client's upload before it reads the reply.
        case closeOutput
    }

    /// The request being received (with an empty body: the sink keeps none).
    private let request: ReceivedRequest
    /// The parameters, or `nil` if malformed: the body is still taken in, then answered with `400`.
    private let options: UploadSinkOptions?
    /// The body bytes received so far.
    private var length = 0
    /// The SHA-256 of the body bytes received so far.
    private var hasher = SHA256()

    /// Whether `path` is this route's (`/upload-sink`, tolerating extra slashes like the router).
    static func matches(path: String) -> Bool {
        path.split(separator: "/") == ["upload-sink"]
    }

    /// A sink for `request`, whose head has just arrived.
    init(request: ReceivedRequest) {
        self.request = request
        self.options = UploadSinkOptions(request.queryParameters)
    }

    /// The step on the head: close at once a connection that was reused when the request asked for
    /// it, and with `close-after=0` before any byte; otherwise proceed.
    ///
    /// - Parameter isFirstRequestOnConnection: Whether no request came before on this connection
    ///   (always `true` on HTTP/2, where each stream has its own handler).
    func start(isFirstRequestOnConnection: Bool) -> Action {
        guard let options = self.options else { return .proceed }
        if options.closesIfReused && !isFirstRequestOnConnection {
            return .closeOutput
        }
        return options.closeAfter == 0 ? .close : .proceed
    }

    /// Takes in the next piece of the body.
    mutating func receive(_ chunk: ByteBuffer) -> Action {
        chunk.withUnsafeReadableBytes { self.hasher.update(bufferPointer: $0) }
        self.length += chunk.readableBytes
        guard let closeAfter = self.options?.closeAfter else { return .proceed }
        return self.length >= closeAfter ? .close : .proceed
    }

    /// The answer once the body has ended: the reply after the delay, or `400` for malformed
    /// parameters.
    func answer() -> ResponsePlan {
        guard let options = self.options else {
            return .complete(.badRequest(UploadSinkOptions.requirements))
        }
        let headers = self.request.head.headers
        let transferEncodings = headers["Transfer-Encoding"]
        let reply = UploadSinkReply(
            method: self.request.head.method.rawValue,
            length: self.length,
            sha256: self.hasher.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(),
            contentLength: headers.first(name: "Content-Length"),
            transferEncoding: transferEncodings.isEmpty ? nil : transferEncodings.joined(separator: ", "),
            connectionID: self.request.connectionID,
            httpVersion: self.request.httpVersion
        )
        return .delayed(options.delay, .json(reply))
    }
}
