/// Connects task cancellation, which may come at any moment, to a transfer that may not have
/// started yet.
final class CancellationLink: Sendable {
    private let state = PosixLock(CancelWhenAttached<TransferHandle>())

    /// Records the started transfer, cancelling it at once if cancellation came first.
    func attach(_ handle: TransferHandle?) {
        guard let handle else { return }
        state.withLock { $0.attach(handle) }?.cancel()
    }

    /// Cancels the transfer now, or as soon as it is attached.
    func cancel() {
        state.withLock { $0.cancel() }?.cancel()
    }
}
