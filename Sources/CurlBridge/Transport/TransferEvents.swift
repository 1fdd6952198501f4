import Foundation
import HTTPTypes

/// What a transfer tells its owner as it runs. Every closure is called on the transport's queue,
/// so it must return quickly and never block; hand heavy work to another queue.
struct TransferEvents: Sendable {
    /// The final response's status and headers, before its body (not called for 1xx responses).
    var onResponseHead: (@Sendable (ResponseHead) -> Void)?
    /// A piece of the body as it arrives. When set, the body is not collected into
    /// ``Response/body``. Returning ``BodyChunkVerdict/pause`` leaves the bytes unconsumed.
    var onBodyChunk: (@Sendable (Data) -> BodyChunkVerdict)?
    /// Bytes moved so far.
    var onProgress: (@Sendable (TransferProgress) -> Void)?
    /// The outcome, called exactly once per transfer.
    var onComplete: @Sendable (Result<Response, RequestError>) -> Void

    /// Events that only report the outcome; the body is collected in memory.
    init(onComplete: @escaping @Sendable (Result<Response, RequestError>) -> Void) {
        self.onComplete = onComplete
    }
}

/// What a body consumer says about the chunk it was offered.
enum BodyChunkVerdict: Sendable {
    /// The chunk is consumed; keep going.
    case accept
    /// The chunk is *not* consumed: the transfer pauses (and is not idle), and the same bytes are
    /// offered again after ``TransferHandle/resume()``.
    case pause
}

/// The head of the final response, delivered before its body.
struct ResponseHead: Sendable, Equatable {
    /// The status.
    var status: HTTPResponse.Status
    /// The header fields.
    var headerFields: HTTPFields
    /// The HTTP version.
    var httpVersion: HTTPVersion
}

/// Bytes moved by a transfer so far; totals are `nil` while unknown.
struct TransferProgress: Sendable, Equatable {
    /// Body bytes received.
    var received: Int64
    /// Body bytes expected, from `Content-Length`.
    var expectedToReceive: Int64?
    /// Body bytes sent.
    var sent: Int64
    /// Body bytes to send.
    var expectedToSend: Int64?
}
