
/// Sends requests with async/await: suspends the calling task, never a thread.
///
/// Cancelling the calling task cancels the transfer in curl; `send` then throws
/// ``RequestError/Code/cancelled``.
///
/// ```swift
/// let client = AsyncClient(transport: transport)
/// let response = try await client.send(.post("users").json(newUser))
/// ```
public final class AsyncClient: Sendable {
    /// The transport requests go through.
    public let transport: Transport

    /// Creates a client.
    ///
    /// - Parameter transport: The transport to send through.
    public init(transport: Transport) {
        self.transport = transport
    }

    /// Sends `request` and returns its response.
    ///
    /// Many calls may run at once; they share the transport's connections.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - progress: Called with upload and download progress (see ``TransferProgress``) on a
    ///     serial queue of its own, the final report before this returns; `nil` by default.
    /// - Throws: ``RequestError``, including ``RequestError/Code/cancelled`` when the task is cancelled.
    public func send(
        _ request: Request, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(RequestError) -> Response {
        guard let progress else {
            // The completion resumes the task itself: one closure, holding the link alone.
            return try await perform(request) { link in TransferEvents { link.resume(with: $0) } }.get()
        }
        return try await send(request, reportingTo: ProgressDelivery(progress)).get()
    }

    /// `send` with progress reports, out of line: what it holds while suspended stays out of the
    /// async frame of every plain `send` (see ``perform(_:events:)``).
    @inline(never)
    private func send(_ request: Request, reportingTo delivery: ProgressDelivery) async -> Result<Response, RequestError> {
        await perform(request) { link in
            var events = TransferEvents { result in delivery.queue.async { link.resume(with: result) } }
            events.onProgress = delivery.handler
            return events
        }
    }

    /// Starts `request` with the events `makeEvents` builds around the task's link (whose
    /// ``AsyncTransferLink/resume(with:)`` is the completion), and suspends until the completion
    /// runs. Cancelling the task cancels the transfer.
    ///
    /// The events are given the link, not a completion closure made here: a closure made in this
    /// generic function and called through the caller's concrete type was wrapped in a
    /// reabstraction thunk, one more allocation per request.
    ///
    /// Inlined into its callers in optimized builds, so that a request adds one async frame, not
    /// two: a task's frames come from its allocator's slabs (about a thousand bytes each), and
    /// with the paths that few requests take (progress reports, a task cancelled before it sends)
    /// moved out of line, a plain `send` and this fit one slab fewer (a release build of
    /// `bench-curlbridge --style async` with 1,000 tasks in flight: 2,002 slabs allocated,
    /// against 3,002).
    @inline(__always)
    func perform<Value: Sendable>(
        _ request: Request,
        events makeEvents: (AsyncTransferLink<Value>) -> TransferEvents
    ) async -> Result<Value, RequestError> {
        guard !Task.isCancelled else { return await performCancelled(request, events: makeEvents) }
        let link = AsyncTransferLink<Value>()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                link.wait(on: continuation)
                // The task's thread starts the transfer itself when the transport is idle (a
                // sequential caller): one thread hand-off fewer before the request is sent.
                transport.startSending(request, events: makeEvents(link)) { link.attach($0) }
            }
        } onCancel: {
            link.cancel()
        }
    }

    /// Ends `request` as cancelled before it starts — through the transport, so monitors see it,
    /// and through the events, so what they hold (a download's file) is released — and returns
    /// that outcome. Out of line, like the progress path of ``send(_:progress:)``.
    @inline(never)
    private func performCancelled<Value: Sendable>(
        _ request: Request,
        events makeEvents: (AsyncTransferLink<Value>) -> TransferEvents
    ) async -> Result<Value, RequestError> {
        let link = AsyncTransferLink<Value>()
        return await withUnsafeContinuation { continuation in
            link.wait(on: continuation)
            transport.startCancelled(request, events: makeEvents(link))
        }
    }
}
