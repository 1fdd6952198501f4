import NIOCore

/// How ``RequestHandler`` answers one request; chosen by ``Router``.
enum ResponsePlan {
    /// Send this response at once.
    case complete(CompleteResponse)
    /// Send this response after a delay.
    case delayed(TimeAmount, CompleteResponse)
    /// Compute the response off the event loop (slow work such as parsing a large body), then send
    /// it, so other connections on the loop are never stalled; `nil` closes the connection
    /// without answering, as ``hangUp``.
    case offloaded(@Sendable () -> CompleteResponse?)
    /// Send the response that the closure hands to its responder, whenever it does (from any
    /// thread): a reply that waits for other requests.
    case eventual(@Sendable (_ respond: @escaping @Sendable (CompleteResponse) -> Void) -> Void)
    /// Stream a stretch of the deterministic byte pattern (see ``PatternBytes``) with backpressure.
    case pattern(PatternResponse)
    /// Send headers (with `Content-Length`) after `initialDelay`, then one byte per `interval`.
    case drip(count: Int, interval: TimeAmount, initialDelay: TimeAmount)
    /// Never answer; keep the connection until the client or the server closes it.
    case silence
    /// Close the connection without answering, as a server that crashed or dropped the request.
    case hangUp
}
