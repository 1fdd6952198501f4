import Dispatch
import Foundation

/// A streamed response started by a ``CallbackClient``: pause and resume delivery, or cancel.
public final class StreamTask: Sendable {
    /// The caller's handlers.
    struct Handlers: Sendable {
        let onResponse: (@Sendable (ResponseHead) -> Void)?
        let onData: @Sendable (Data) -> Void
        let onComplete: @Sendable (Result<Response, RequestError>) -> Void
    }

    private struct Delivery {
        /// A drain of the buffer is scheduled or running on the queue.
        var isScheduled = false
        var isPaused = false
        var isComplete = false
        /// After ``StreamTask/cancel()``, chunks are dropped: only the end is delivered.
        var isCancelled = false
    }

    private let buffer: ResponseBodyBuffer
    private let queue: DispatchQueue
    private let handlers: Handlers
    private let delivery = PosixLock(Delivery())

    init(buffer: ResponseBodyBuffer, queue: DispatchQueue, handlers: Handlers) {
        self.buffer = buffer
        self.queue = queue
        self.handlers = handlers
    }

    /// Stops calling `onData` (after the call in progress, if any) until ``resume()``. Unread
    /// bytes then fill the buffer, and the transfer pauses in curl — without counting as idle.
    public func pause() {
        delivery.withLock { $0.isPaused = true }
    }

    /// Delivers again after ``pause()``.
    public func resume() {
        delivery.withLock { $0.isPaused = false }
        deliverAvailable()
    }

    /// Cancels the transfer; no more `onData` calls, and `onComplete` still runs exactly once, with
    /// ``RequestError/Code/cancelled`` unless it had already run — also when the transfer had
    /// finished but its end was not delivered yet: a success would claim a body whose rest the
    /// caller never saw.
    public func cancel() {
        delivery.withLock { $0.isCancelled = true }
        buffer.cancel()
        resume()  // a paused task still reports its end
    }

    /// Whether the transfer has completed, whether or not `onComplete` has run yet.
    var transferHasEnded: Bool { buffer.hasEnded }

    /// Whether the transfer is paused in curl because undelivered bytes fill the buffer.
    var isWaitingForRoom: Bool { buffer.isPausedForRoom }

    /// Schedules a drain of the buffer on the queue, unless one is pending or delivery is paused.
    func deliverAvailable() {
        let schedule = delivery.withLock { delivery in
            guard !delivery.isScheduled, !delivery.isPaused, !delivery.isComplete else { return false }
            delivery.isScheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    /// Delivers every waiting item, in order, while not paused.
    private func drain() {
        while true {
            let next: (item: ResponseBodyBuffer.Item, isCancelled: Bool)? = delivery.withLock { delivery in
                guard !delivery.isPaused, !delivery.isComplete, let item = buffer.take() else {
                    delivery.isScheduled = false
                    return nil
                }
                if case .end = item { delivery.isComplete = true }
                return (item, delivery.isCancelled)
            }
            guard let (item, isCancelled) = next else { break }
            switch item {
            case .head(let head):
                if !isCancelled { handlers.onResponse?(head) }
            case .chunk(let data):
                if !isCancelled { handlers.onData(data) }
            case .end(let result):
                buffer.setArrivalHandler(nil)  // the buffer no longer keeps this task alive
                handlers.onComplete(isCancelled ? result.flatMap(Self.cancelledAfterEnd) : result)
            }
        }
        // An item that arrived after the last take but before `isScheduled` was cleared.
        if buffer.hasItem { deliverAvailable() }
    }

    /// The end of a transfer that succeeded after the caller cancelled its delivery.
    private static func cancelledAfterEnd(_ response: Response) -> Result<Response, RequestError> {
        .failure(RequestError(
            .cancelled, "the stream was cancelled before its end was delivered", method: response.requestMethod,
            url: response.url, response: response))
    }
}
