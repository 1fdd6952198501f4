import Dispatch

/// Hands progress reports from the transport's queue to the caller's closure on a serial queue,
/// so a slow closure never holds up curl, and reports arrive in order.
struct ProgressDelivery: Sendable {
    /// Where the closure runs; a completion that must follow the final report goes through it too.
    let queue: DispatchQueue
    private let report: @Sendable (TransferProgress) -> Void

    /// Delivery of `report` on `queue`, or on a new serial queue when `nil`.
    init(_ report: @escaping @Sendable (TransferProgress) -> Void, on queue: DispatchQueue? = nil) {
        self.queue = queue ?? DispatchQueue(label: "CurlBridge.progress")
        self.report = report
    }

    /// The event handler for ``TransferEvents/onProgress``.
    var handler: @Sendable (TransferProgress) -> Void {
        { [queue, report] progress in queue.async { report(progress) } }
    }
}
