import Dispatch
import Foundation

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

    /// What ``write(_:)`` does with a piece, decided under the lock.
    private enum WriteStep {
        /// The piece joined the last chunk, or was refused: this is the verdict.
        case done(BodyChunkVerdict)
        /// The piece starts a new chunk of this capacity.
        case startChunk(capacity: Int)
    }

    /// What the buffer holds for the consumer: a chunk is still gathering pieces until taken.
    private enum Entry {
        case head(ResponseHead)
        case chunk(GatheredChunk)
        case end(Result<Response, RequestError>)
    }

    /// Who to wake: the task waiting in ``nextItem()``, and the arrival handler.
    private typealias Waiters = (task: CheckedContinuation<Void, Never>?, onArrival: (@Sendable () -> Void)?)

    private struct State {
        var items: [Entry] = []
        /// Index of the next item to take in `items`.
        var next = 0
        /// Body bytes put in and not taken yet.
        var buffered = 0
        /// A chunk was refused for lack of room: the transfer is paused.
        var isPausedForRoom = false
        var isEnded = false
        /// The transfer, once started (detached after it completed), cancelled now or as soon
        /// as it is attached.
        var transfer = CancelWhenAttached<TransferHandle>()
        /// A task waiting in ``ResponseBodyBuffer/nextItem()``.
        var waitingTask: CheckedContinuation<Void, Never>?
        /// Called whenever an item arrives (blocking and callback consumers).
        var onArrival: (@Sendable () -> Void)?
        /// The capacity of the latest chunk started.
        var lastChunkCapacity = 0
        /// A chunk was put in and the consumer not woken yet: it is, when the turn ends.
        var isAnnouncementDue = false

        /// Who to wake for what was put in: the waiting task (no longer waiting after this) and
        /// the arrival handler. Nothing is due to be announced after this.
        mutating func takeWaiters() -> Waiters {
            isAnnouncementDue = false
            defer { waitingTask = nil }
            return (waitingTask, onArrival)
        }
    }

    private let limits: BufferLimits
    /// The chunks' buffers. As many are kept for reuse as the unread bytes and two more chunks
    /// fill: a consumer that falls behind and catches up releases that many at once, and the
    /// producer needs them all again (with a budget of two chunks, a 1 GiB stream under load
    /// faulted in 35,000–40,000 fresh pages; with this one, about 2,500). So a stream holds at most
    /// its high watermark and 512 KiB of unused buffers beyond its unread bytes, until it ends.
    private let chunks: ChunkPool
    /// A ``PosixLock``, not a `Mutex`: the producer and the consumer contend for it, and
    /// ThreadSanitizer sees `Mutex`'s contended hand-over on Linux as a race (see ``PosixLock``).
    private let state = PosixLock(State())

    /// A buffer with the given watermarks.
    init(limits: BufferLimits) {
        self.limits = limits
        chunks = ChunkPool(budget: limits.highWatermark + 2 * GatheredChunk.maximumCapacity)
    }

    deinit {
        // Chunks the consumer never took.
        state.withLock { state in
            for case .chunk(let chunk) in state.items[state.next...] {
                chunks.recycle(chunk.buffer, capacity: chunk.capacity)
            }
        }
    }

    /// Events that fill this buffer.
    func events(progress: (@Sendable (TransferProgress) -> Void)?) -> TransferEvents {
        var events = TransferEvents { [self] result in
            put(.end(result), isLast: true)
        }
        events.onResponseHead = { [self] head in
            put(.head(head), isLast: false)
            return nil
        }
        events.body = self
        events.onProgress = progress
        return events
    }

    /// Connects the started transfer (`nil` when it completed at once).
    func attach(_ handle: TransferHandle?) {
        let (cancelNow, resumeNow) = state.withLock { state -> (TransferHandle?, Bool) in
            guard !state.isEnded else { return (nil, false) }
            let cancelNow = handle.flatMap { state.transfer.attach($0) }
            // The consumer may have made room before the handle was known.
            let resume = state.isPausedForRoom && state.buffered <= limits.lowWatermark
            if resume { state.isPausedForRoom = false }
            return (cancelNow, resume)
        }
        cancelNow?.cancel()
        if resumeNow { handle?.resume() }
    }

    /// Cancels the transfer (now, or as soon as it is attached); its end item reports `.cancelled`.
    func cancel() {
        state.withLock { $0.transfer.cancel() }?.cancel()
    }

    /// Sets the closure called (from any thread) whenever an item arrives; `nil` lets go of it
    /// (a consumer that has taken the end, so the closure's captures can be released).
    func setArrivalHandler(_ onArrival: (@Sendable () -> Void)?) {
        state.withLock { $0.onArrival = onArrival }
    }

    // MARK: Producer (the transport's queue)

    /// Takes a piece of the body, or pauses the transfer while the buffer is above its high
    /// watermark. The piece joins the last chunk while the consumer has not taken it and it has
    /// room; otherwise it starts a new chunk, announced when the turn ends.
    func write(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        guard !bytes.isEmpty else { return .accept }
        let step = state.withLock { state -> WriteStep in
            guard state.buffered < limits.highWatermark else {
                state.isPausedForRoom = true
                return .done(.pause)
            }
            let last = state.items.count - 1
            guard last >= state.next, case .chunk(var chunk) = state.items[last], chunk.hasRoom(for: bytes.count) else {
                state.lastChunkCapacity = GatheredChunk.capacity(forPiece: bytes.count, after: state.lastChunkCapacity)
                return .startChunk(capacity: state.lastChunkCapacity)
            }
            chunk.append(bytes)
            state.items[last] = .chunk(chunk)
            state.buffered += bytes.count
            return .done(.accept)
        }
        switch step {
        case .done(let verdict):
            return verdict
        case .startChunk(let capacity):
            var chunk = GatheredChunk(capacity: capacity, from: chunks)
            chunk.append(bytes)
            state.withLock { state in
                state.items.append(.chunk(chunk))
                state.buffered += chunk.count
                state.isAnnouncementDue = true
            }
            return .accept
        }
    }

    var announcesAtTurnEnd: Bool { true }

    /// Wakes the consumer for the chunks the turn put in, if it has not been woken since.
    func turnDidEnd() {
        let (task, onArrival) = state.withLock { state -> Waiters in
            guard state.isAnnouncementDue else { return (nil, nil) }
            return state.takeWaiters()
        }
        task?.resume()
        onArrival?()
    }

    /// Puts in the head or the end, and wakes the consumer at once.
    private func put(_ entry: Entry, isLast: Bool) {
        let (task, onArrival) = state.withLock { state in
            state.items.append(entry)
            if isLast {
                state.isEnded = true
                _ = state.transfer.detach()
            }
            return state.takeWaiters()
        }
        task?.resume()
        onArrival?()
    }

    // MARK: Consumer

    /// The next item, or `nil` when none has arrived yet; after the end, the end again. Resumes a transfer paused for room once
    /// the buffer is down to the low watermark.
    func take() -> Item? {
        let (entry, resume) = state.withLock { state -> (Entry?, TransferHandle?) in
            guard state.next < state.items.count else { return (nil, nil) }
            let entry = state.items[state.next]
            if case .end = entry { return (entry, nil) }  // the end stays: every later take sees it
            state.next += 1
            if state.next > 64, state.next * 2 > state.items.count {
                state.items.removeFirst(state.next)
                state.next = 0
            }
            var resume: TransferHandle?
            if case .chunk(let chunk) = entry {
                state.buffered -= chunk.count
                // Without a handle yet, ``attach(_:)`` resumes instead.
                if state.isPausedForRoom, state.buffered <= limits.lowWatermark, let handle = state.transfer.target {
                    state.isPausedForRoom = false
                    resume = handle
                }
            }
            return (entry, resume)
        }
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
        state.withLock { $0.isPausedForRoom }
    }

    /// Whether the transfer has completed (its end may still wait to be taken).
    var hasEnded: Bool {
        state.withLock { $0.isEnded }
    }

    /// Whether a task waits in ``nextItem()``.
    var hasWaitingTask: Bool {
        state.withLock { $0.waitingTask != nil }
    }

    /// Whether an item is waiting.
    var hasItem: Bool {
        state.withLock { $0.next < $0.items.count }
    }

    /// The next item, suspending the task until one arrives. Cancelling the task cancels the transfer.
    func nextItem() async -> Item {
        while true {
            if let item = take() { return item }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state -> Bool in
                        if state.next < state.items.count { return true }
                        state.waitingTask = continuation
                        return false
                    }
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
