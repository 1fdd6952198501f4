import Synchronization

/// Sends requests with async/await: suspends the calling task, never a thread.
///
/// Cancelling the calling task cancels the transfer in curl; `send` then throws
/// ``RequestError/Code/cancelled``.
///
/// ```swift
/// let client = AsyncClient(transport: transport)
/// let response = try await client.send(.post("users").json(newUser))
/// ```
public actor AsyncClient {
    /// The transport requests go through.
    public nonisolated let transport: Transport

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
    /// - Throws: ``RequestError``, including ``RequestError/Code/cancelled`` when the task is cancelled.
    public nonisolated func send(_ request: Request) async throws(RequestError) -> Response {
        guard !Task.isCancelled else {
            throw RequestError(.cancelled, "the task was cancelled before the request started", method: request.method, url: request.url)
        }
        let cancellation = CancellationLink()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response, RequestError>, Never>) in
                let handle = transport.start(request, events: TransferEvents { continuation.resume(returning: $0) })
                cancellation.attach(handle)
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }
}

/// Connects task cancellation, which may come at any moment, to a transfer that may not have
/// started yet.
final class CancellationLink: Sendable {
    private enum State {
        case waiting
        case running(TransferHandle)
        case cancelled
    }

    private let state = Mutex(State.waiting)

    /// Records the started transfer, cancelling it at once if cancellation came first.
    func attach(_ handle: TransferHandle?) {
        guard let handle else { return }
        let cancelNow = state.withLock { state in
            if case .cancelled = state { return true }
            state = .running(handle)
            return false
        }
        if cancelNow { handle.cancel() }
    }

    /// Cancels the transfer now, or as soon as it is attached.
    func cancel() {
        let handle: TransferHandle? = state.withLock { state in
            if case .running(let handle) = state { return handle }
            state = .cancelled
            return nil
        }
        handle?.cancel()
    }
}
