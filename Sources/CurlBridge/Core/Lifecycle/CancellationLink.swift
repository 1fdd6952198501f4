/// Connects task cancellation, which may come at any moment, to a transfer that may not have
/// started yet.
final class CancellationLink: Sendable {
    private enum State {
        case waiting
        case running(TransferHandle)
        case cancelled
    }

    private let state = PosixLock(State.waiting)

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
