/// A remote control for one request; safe to use from any thread, any number of times.
/// Commands for a request that has already completed are ignored.
struct TransferHandle: Sendable {
    /// The request's number.
    let id: UInt64
    /// The loop that runs it (held, so a handle kept after the transport went away stays safe).
    let loop: any RequestLoop
    /// Where the loop finds the request.
    let registry: RequestRegistry

    /// Ends the request; it completes with ``RequestError/Code/cancelled`` unless it already
    /// completed — whether it is in a transfer, waiting between attempts or running interceptors.
    func cancel() { loop.submit { [registry, id] in registry.cancel(id) } }

    /// Stops receiving the body until ``resume()``; the idle timeout does not run meanwhile.
    func pause() { loop.submit { [registry, id] in registry.engine.pauseReceiving(id) } }

    /// Receives the body again after ``pause()`` or a ``BodyChunkVerdict/pause`` verdict.
    func resume() { loop.submit { [registry, id] in registry.engine.resumeReceiving(id) } }
}
