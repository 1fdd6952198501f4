import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A streamed response started by a ``CallbackClient``: pause and resume delivery, or cancel.
public final class StreamTask: Sendable {
    /// The caller's handlers.
    struct Handlers: Sendable {
        let onResponse: (@Sendable (ResponseHead) -> Void)?
        let onData: @Sendable (Data) -> Void
        let onComplete: @Sendable (Result<Response, RequestError>) -> Void
    }

    private let buffer: ResponseBodyBuffer
    private let queue: DispatchQueue
    private let handlers: Handlers
    private let delivery = PosixLock(StreamDelivery())

    init(buffer: ResponseBodyBuffer, queue: DispatchQueue, handlers: Handlers) {
        self.buffer = buffer
        self.queue = queue
        self.handlers = handlers
    }

    /// Stops calling `onData` (after the call in progress, if any) until ``resume()``. Unread
    /// bytes then fill the buffer, and the transfer pauses in curl — without counting as idle.
    public func pause() {
        delivery.withLock { $0.paused() }
    }

    /// Delivers again after ``pause()``.
    public func resume() {
        delivery.withLock { $0.resumed() }
        deliverAvailable()
    }

    /// Cancels the transfer; no more `onData` calls, and `onComplete` still runs exactly once, with
    /// ``RequestError/Code/cancelled`` unless it had already run — also when the transfer had
    /// finished but its end was not delivered yet: a success would claim a body whose rest the
    /// caller never saw.
    public func cancel() {
        delivery.withLock { $0.cancelled() }
        buffer.cancel()
        resume()  // a paused task still reports its end
    }

    /// Whether the transfer has completed, whether or not `onComplete` has run yet.
    var transferHasEnded: Bool { buffer.hasEnded }

    /// Whether the transfer is paused in curl because undelivered bytes fill the buffer.
    var isWaitingForRoom: Bool { buffer.isPausedForRoom }

    /// Schedules a drain of the buffer on the queue, unless one is pending or delivery is paused.
    func deliverAvailable() {
        if delivery.withLock({ $0.drainAsked() }) { queue.async { self.drain() } }
    }

    /// Delivers every waiting item, in order, while not paused.
    private func drain() {
        while true {
            let next = delivery.withLock { delivery -> (ResponseBodyBuffer.Item, StreamDelivery.Handover)? in
                guard delivery.drainMayTake() else { return nil }
                let item = buffer.take()
                let handover = delivery.drainTook(Self.kind(of: item))
                return item.map { ($0, handover) }
            }
            guard let (item, handover) = next else { break }
            switch item {
            case .head(let head):
                if handover == .deliver { handlers.onResponse?(head) }
            case .chunk(let data):
                if handover == .deliver { handlers.onData(data) }
            case .end(let result):
                buffer.setArrivalHandler(nil)  // the buffer no longer keeps this task alive
                handlers.onComplete(handover == .complete(asCancelled: true) ? result.flatMap(Self.cancelledAfterEnd) : result)
            }
        }
        // An item that arrived after the last take but before the drain went idle.
        if buffer.hasItem { deliverAvailable() }
    }

    /// What `item` is, for the delivery's state.
    private static func kind(of item: ResponseBodyBuffer.Item?) -> StreamDelivery.Taken {
        switch item {
        case nil: .nothing
        case .head?: .head
        case .chunk?: .chunk
        case .end?: .end
        }
    }

    /// The end of a transfer that succeeded after the caller cancelled its delivery.
    private static func cancelledAfterEnd(_ response: Response) -> Result<Response, RequestError> {
        .failure(RequestError(
            .cancelled, "the stream was cancelled before its end was delivered", method: response.requestMethod,
            url: response.url, response: response))
    }
}
