/// One async call's ties to its transfer, in one lock's object: the continuation its task waits
/// on, and the task's cancellation, which may come before the transfer exists. The loop resumes the
/// task through it directly, with no hop in between. A copy shares the state.
struct AsyncTransferLink<Value: Sendable>: Sendable {
    private struct State {
        /// The waiting task's continuation, until the outcome resumes it.
        var continuation: UnsafeContinuation<Result<Value, RequestError>, Never>?
        /// The transfer, and whether the task was cancelled.
        var transfer = CancelWhenAttached<TransferHandle>()
    }

    private let state = PosixLock(State())

    /// Keeps `continuation` for the outcome. Called before the transfer starts, so the outcome
    /// always finds it.
    func wait(on continuation: UnsafeContinuation<Result<Value, RequestError>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Resumes the waiting task with `result`. Invariant: the transfer's events call this exactly
    /// once, after `wait(on:)`; the continuation is taken under the lock, so it is resumed once.
    func resume(with result: consuming Result<Value, RequestError>) {
        state.withLock { $0.continuation.take() }?.resume(returning: consume result)
    }

    /// Records the started transfer, cancelling it at once if the task was cancelled first.
    func attach(_ handle: TransferHandle) {
        state.withLock { $0.transfer.attach(handle) }?.cancel()
    }

    /// Cancels the transfer now, or as soon as it is attached.
    func cancel() {
        state.withLock { $0.transfer.cancel() }?.cancel()
    }
}
