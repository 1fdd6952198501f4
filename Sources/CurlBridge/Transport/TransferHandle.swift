/// A remote control for one transfer; safe to use from any thread, any number of times.
/// Commands for a transfer that has already finished are ignored.
struct TransferHandle: Sendable {
    /// The transfer's number within its loop.
    let id: UInt64
    /// The loop that runs it.
    let loop: CurlMultiLoop

    /// Stops the transfer; it completes with ``RequestError/Code/cancelled`` unless it already completed.
    func cancel() { loop.submit(.cancel(id)) }

    /// Stops receiving the body until ``resume()``; the idle timeout does not run meanwhile.
    func pause() { loop.submit(.pauseReceiving(id)) }

    /// Receives the body again after ``pause()`` or a ``BodyChunkVerdict/pause`` verdict.
    func resume() { loop.submit(.resumeReceiving(id)) }
}
