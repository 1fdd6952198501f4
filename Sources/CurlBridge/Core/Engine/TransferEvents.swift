/// What a request tells its caller as it runs: the style adapters (clients, streams, downloads)
/// make one per request. Every member is called on the transport's loop, so it must return
/// quickly and never block; hand heavy work to another queue.
struct TransferEvents: Sendable {
    /// The final response's status and headers, before its body (not called for 1xx responses,
    /// redirects followed, or failure responses that are retried). Returning an error stops the
    /// transfer, which then completes with that error.
    var onResponseHead: (@Sendable (ResponseHead) -> RequestError?)?
    /// Where the final response's body goes as it arrives: a file or a stream. When `nil`, the
    /// body is collected in memory, under the cap, into ``Response/body``.
    var body: (any BodySink & Sendable)?
    /// Bytes moved so far, at most every ``TransferProgress/minimumInterval``, and once more, with
    /// the final counts, just before ``onComplete`` (not for a request that never reached a transfer).
    var onProgress: (@Sendable (TransferProgress) -> Void)?
    /// The outcome, called exactly once per request; it takes the result (a moved response
    /// costs no retain of its fields).
    var onComplete: @Sendable (consuming Result<Response, RequestError>) -> Void

    /// Whether a body sink takes the body: its optional matched in place, where comparing it with
    /// `nil` copied the existential through its type's metadata on every request (issue 37).
    var takesBody: Bool {
        if case Optional.none = body { return false }
        return true
    }

    /// Events that only report the outcome; the body is collected in memory.
    init(onComplete: @escaping @Sendable (consuming Result<Response, RequestError>) -> Void) {
        self.onComplete = onComplete
    }
}
