import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bounded buffer between a streamed response and its consumer, shared by the three styles.
///
/// The transport's queue puts the head, body chunks and the outcome in; the consumer takes them in
/// that order with ``take()``. When ``BufferLimits/highWatermark`` bytes wait unread, the next
/// chunk is refused with ``BodyChunkVerdict/pause``: curl pauses the transfer (which is then not
/// idle) and offers the same bytes again once the consumer has read the buffer down to
/// ``BufferLimits/lowWatermark``. Memory stays bounded whatever the consumer does.
///
/// A new chunk is announced — the waiting consumer woken — when the loop's turn ends
/// (``turnDidEnd()``), not as it starts: curl hands a turn's bytes over in pieces of at most
/// 16 KiB, and a quick consumer woken for the first would take it alone and sleep again for the
/// next, one wake-up per piece. Announced once per turn, it takes what the turn gathered at once.
final class ResponseBodyBuffer: BodySink, Sendable {
    /// What the consumer takes, in order: the head (unless the transfer failed first), chunks,
    /// then the outcome (whose response has an empty body: the body went through the chunks).
    enum Item: Sendable {
        case head(ResponseHead)
        case chunk(Data)
        case end(Result<Response, RequestError>)
    }

    /// The buffer's state: a value with no I/O, whose events say whom to wake, resume or cancel.
    private typealias State = BodyBufferState<TransferHandle, CheckedContinuation<Void, Never>>

    /// The chunks' buffers. As many are kept for reuse as the unread bytes and two more chunks
    /// fill: a consumer that falls behind and catches up releases that many at once, and the
    /// producer needs them all again (with a budget of two chunks, a 1 GiB stream under load
    /// faulted in 35,000–40,000 fresh pages; with this one, about 2,500). So a stream holds at most
    /// its high watermark and 512 KiB of unused buffers beyond its unread bytes, until it ends.
    private let chunks: ChunkPool
    /// A ``PosixLock``, not a `Mutex`: the producer and the consumer contend for it, and
    /// ThreadSanitizer sees `Mutex`'s contended hand-over on Linux as a race (see ``PosixLock``).
    private let state: PosixLock<State>

    /// A buffer with the given watermarks.
    init(limits: BufferLimits) {
        state = PosixLock(State(limits: limits))
        chunks = ChunkPool(budget: limits.highWatermark + 2 * GatheredChunk.maximumCapacity)
    }

    deinit {
        // Chunks the consumer never took.
        for chunk in state.withLock({ $0.untakenChunks }) {
            chunks.recycle(chunk.buffer, capacity: chunk.capacity)
        }
    }

    /// Events that fill this buffer.
    func events(progress: (@Sendable (TransferProgress) -> Void)?) -> TransferEvents {
        var events = TransferEvents { [self] result in
            wake(state.withLock { $0.ended(result) })
        }
        events.onResponseHead = { [self] head in
            wake(state.withLock { $0.headArrived(head) })
            return nil
        }
        events.body = self
        events.onProgress = progress
        return events
    }

    /// Connects the started transfer (`nil` when it completed at once).
    func attach(_ handle: TransferHandle?) {
        let attachment = state.withLock { $0.attached(handle) }
        attachment.cancel?.cancel()
        if attachment.resumes { handle?.resume() }
    }

    /// Cancels the transfer (now, or as soon as it is attached); its end item reports `.cancelled`.
    func cancel() {
        state.withLock { $0.cancelled() }?.cancel()
    }

    /// Sets the closure called (from any thread) whenever an item arrives; `nil` lets go of it
    /// (a consumer that has taken the end, so the closure's captures can be released).
    func setArrivalHandler(_ onArrival: (@Sendable () -> Void)?) {
        state.withLock { $0.arrivalHandlerSet(onArrival) }
    }

    // MARK: Producer (the transport's queue)

    /// Takes a piece of the body, or pauses the transfer while the buffer is above its high
    /// watermark. The piece joins the last chunk while the consumer has not taken it and it has
    /// room; otherwise it starts a new chunk, announced when the turn ends.
    func write(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        guard !bytes.isEmpty else { return .accept }
        switch state.withLock({ $0.pieceArrived(bytes) }) {
        case .joined, .ignored:
            return .accept
        case .refused:
            return .pause
        case .startChunk(let capacity):
            var chunk = GatheredChunk(capacity: capacity, from: chunks)
            chunk.append(bytes)
            state.withLock { $0.chunkStarted(chunk) }
            return .accept
        }
    }

    var announcesAtTurnEnd: Bool { true }

    /// Wakes the consumer for the chunks the turn put in, if it has not been woken since.
    func turnDidEnd() {
        wake(state.withLock { $0.turnEnded() })
    }

    /// Wakes whom the state said to: the waiting task and the arrival handler.
    private func wake(_ wake: State.Wake) {
        wake.task?.resume()
        wake.onArrival?()
    }

    // MARK: Consumer

    /// The next item, or `nil` when none has arrived yet; after the end, the end again. Resumes a transfer paused for room once
    /// the buffer is down to the low watermark.
    func take() -> Item? {
        let (entry, resume) = state.withLock { $0.take() }
        resume?.resume()
        switch entry {
        case nil: return nil
        case .head(let head)?: return .head(head)
        case .chunk(let chunk)?: return .chunk(chunks.data(chunk.buffer, count: chunk.count, capacity: chunk.capacity))
        case .end(let result)?: return .end(result)
        }
    }

    /// The head that `first` — the first item taken — carries: the head itself, or the response's
    /// own when the transfer ended without delivering one (the end stays in the buffer).
    ///
    /// - Throws: The transfer's error, when it failed before its head.
    static func head(from first: Item) throws(RequestError) -> ResponseHead {
        switch first {
        case .head(let head): return head
        case .chunk: preconditionFailure("a body chunk cannot precede the head")
        case .end(.failure(let error)): throw error
        case .end(.success(let response)): return response.head
        }
    }

    /// The next item, waiting on `arrival` (signalled by the arrival handler) until one comes.
    func nextItem(waitingOn arrival: DispatchSemaphore) -> Item {
        while true {
            if let item = take() { return item }
            arrival.wait()
        }
    }

    /// Whether the transfer is paused because the buffer is full.
    var isPausedForRoom: Bool {
        state.withLock { $0.phase == .pausedForRoom }
    }

    /// Whether the transfer has completed (its end may still wait to be taken).
    var hasEnded: Bool {
        state.withLock { $0.phase == .ended }
    }

    /// Whether a task waits in ``nextItem()``.
    var hasWaitingTask: Bool {
        state.withLock { $0.hasWaitingTask }
    }

    /// Whether an item is waiting.
    var hasItem: Bool {
        state.withLock { $0.hasItem }
    }

    /// The next item, suspending the task until one arrives. Cancelling the task cancels the transfer.
    func nextItem() async -> Item {
        while true {
            if let item = take() { return item }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { $0.taskWaits(continuation) }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                cancel()
            }
        }
    }
}

/// How much of a streamed body may wait for its consumer.
public struct BufferLimits: Sendable, Hashable {
    /// Unread bytes at which the transfer pauses; 1 MiB by default.
    public var highWatermark: Int
    /// Unread bytes at which a paused transfer resumes; 256 KiB by default.
    public var lowWatermark: Int

    /// Creates limits; `lowWatermark` is clamped to at most `highWatermark`.
    public init(highWatermark: Int = 1 << 20, lowWatermark: Int = 256 << 10) {
        self.highWatermark = max(1, highWatermark)
        self.lowWatermark = min(max(0, lowWatermark), self.highWatermark)
    }
}
