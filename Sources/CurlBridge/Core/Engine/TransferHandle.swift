/// A remote control for one request; safe to use from any thread, any number of times.
/// Commands for a request that has already completed are ignored.
struct TransferHandle: Sendable {
    /// The request's number.
    let id: UInt64
    /// Where the loop finds the request (held strongly, with its loop: a handle kept after the
    /// transport closed finds a closed loop, which refuses its commands, so they do nothing).
    let registry: LoopBound<RequestRegistry>

    /// Ends the request; it completes with ``RequestError/Code/cancelled`` unless it already
    /// completed — whether it is in a transfer, waiting between attempts or running interceptors.
    func cancel() { registry.submit { [id] in $0.cancel(id) } }

    /// Stops receiving the body until ``resume()``; the idle timeout does not run meanwhile.
    func pause() { registry.submit { [id] in $0.engine.pauseReceiving(id) } }

    /// Receives the body again after ``pause()`` or a ``BodyChunkVerdict/pause`` verdict.
    func resume() { registry.submit { [id] in $0.engine.resumeReceiving(id) } }
}
