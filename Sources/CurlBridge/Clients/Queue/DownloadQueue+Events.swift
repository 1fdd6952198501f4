import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Events, as an `AsyncSequence` and as callbacks.
extension DownloadQueue {
    /// Every event from now on, as an `AsyncSequence`; it ends when the queue is closed or released.
    public var events: AsyncStream<DownloadQueueEvent> {
        let (stream, continuation) = AsyncStream<DownloadQueueEvent>.makeStream()
        let key = UUID()
        let isClosed = state.withLock { shared in
            if shared.phase != .closed { shared.streams[key] = continuation }
            return shared.phase == .closed
        }
        if isClosed { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: key) }
        }
        return stream
    }

    /// Calls `handler` on `queue` with every event from now on.
    public func onEvent(queue: DispatchQueue = .main, _ handler: @escaping @Sendable (DownloadQueueEvent) -> Void) {
        state.withLock { $0.handlers.append((queue, handler)) }
    }

    func emit(_ event: DownloadQueueEvent, onDelivery: Bool = false) {
        let (streams, handlers) = state.withLock { (Array($0.streams.values), $0.handlers) }
        let deliver: @Sendable () -> Void = {
            for continuation in streams { continuation.yield(event) }
        }
        if onDelivery { deliver() } else { delivery.async(execute: deliver) }
        for (queue, handler) in handlers { queue.async { handler(event) } }
    }
}
