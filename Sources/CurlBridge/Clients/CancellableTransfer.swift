/// A handle that cancels one transfer, whichever client started it: ``TransferCanceller``
/// (blocking calls), ``CallbackTask``, ``DownloadTask`` and ``StreamTask`` (callbacks). Async calls
/// are cancelled through their task.
///
/// Code that keeps handles of several kinds — say, everything a screen started — holds them as
/// one type and cancels them together:
///
/// ```swift
/// var inFlight: [any CancellableTransfer] = []
/// inFlight.append(callbacks.send(.get("feed")) { result in … })
/// inFlight.append(callbacks.download(.get("avatar.png"), to: avatarFile) { result in … })
/// inFlight.forEach { $0.cancel() }
/// ```
public protocol CancellableTransfer: Sendable {
    /// Cancels the transfer from any thread; its completion still comes exactly once, with
    /// ``RequestError/Code/cancelled`` unless it had already finished.
    func cancel()
}

extension TransferCanceller: CancellableTransfer {}
extension CallbackTask: CancellableTransfer {}
extension DownloadTask: CancellableTransfer {}
extension StreamTask: CancellableTransfer {}
