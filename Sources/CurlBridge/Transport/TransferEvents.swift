import Foundation

/// What a transfer tells its owner as it runs. Every closure is called on the transport's queue,
/// so it must return quickly and never block; hand heavy work to another queue.
struct TransferEvents: Sendable {
    /// The final response's status and headers, before its body (not called for 1xx responses).
    /// Returning an error stops the transfer, which then completes with that error.
    var onResponseHead: (@Sendable (ResponseHead) -> RequestError?)?
    /// A piece of the body as it arrives, in curl's own buffer (valid only during the call). When
    /// set, the body is not collected into ``Response/body``.
    var onBodyChunk: (@Sendable (UnsafeRawBufferPointer) -> BodyChunkVerdict)?
    /// Bytes moved so far, at most every ``TransferProgress/minimumInterval``, and once more, with
    /// the final counts, just before ``onComplete`` (not for a request that never reached curl).
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
    /// The transfer must stop and complete with this error.
    case fail(RequestError)
}
