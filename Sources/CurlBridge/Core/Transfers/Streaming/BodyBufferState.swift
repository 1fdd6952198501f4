#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``ResponseBodyBuffer``'s state as a value: what waits for the consumer, where the transfer
/// is (``Phase``), its handle, and who waits. Its owner keeps it under a lock and feeds it the
/// buffer's events; each method says what the owner does next — allocate a chunk, wake the
/// consumer, resume or cancel the transfer — and the owner does it after the lock. The value does
/// no I/O and wakes no one.
///
/// Generic over the transfer's `Handle` and the waiting task's `Waiter` only so that a test can
/// drive it with plain tokens; the buffer uses `TransferHandle` and a continuation.
struct BodyBufferState<Handle, Waiter> {
    /// Where the transfer is, as the buffer sees it.
    enum Phase: Equatable {
        /// Pieces are taken while fewer than the high watermark's bytes wait unread.
        case open
        /// A piece was refused for lack of room, so curl paused the transfer: it resumes once the
        /// consumer has read the buffer down to the low watermark and the handle is known.
        case pausedForRoom
        /// The end is in: nothing more arrives, and the handle is let go.
        case ended
    }

    /// What the buffer holds for the consumer: a chunk is still gathering pieces until taken.
    enum Entry {
        case head(ResponseHead)
        case chunk(GatheredChunk)
        case end(Result<Response, RequestError>)
    }

    /// What a piece of the body does, decided by ``pieceArrived(_:)``.
    enum PieceStep: Equatable {
        /// The piece joined the last chunk.
        case joined
        /// No room: the piece is refused and the transfer pauses.
        case refused
        /// The piece starts a new chunk of this capacity: the owner makes it (outside the lock)
        /// and reports it with ``chunkStarted(_:)``.
        case startChunk(capacity: Int)
        /// The transfer has ended: the piece has nowhere to go.
        case ignored
    }

    /// Who to wake after the lock: the task waiting for an item and the arrival handler.
    struct Wake {
        var task: Waiter?
        var onArrival: (@Sendable () -> Void)?

        /// No one.
        static var none: Wake { Wake() }
    }

    /// What a handle attached does: cancel it (a cancel came first), resume it (the consumer made
    /// room before it was known), or neither.
    struct Attachment {
        var cancel: Handle?
        var resumes = false
    }

    /// Where the transfer is.
    private(set) var phase = Phase.open
    /// The watermarks.
    let limits: BufferLimits
    private var items: [Entry] = []
    /// Index of the next item to take in `items`.
    private var next = 0
    /// Body bytes put in and not taken yet.
    private(set) var buffered = 0
    /// The transfer, once started (detached at the end), cancelled now or as soon as it is attached.
    private var transfer = CancelWhenAttached<Handle>()
    /// A task waiting for an item.
    private var waitingTask: Waiter?
    /// Called whenever an item arrives (blocking and callback consumers).
    private var onArrival: (@Sendable () -> Void)?
    /// The capacity of the latest chunk started.
    private var lastChunkCapacity = 0
    /// A chunk was put in and the consumer not woken yet: it is, when the turn ends.
    private(set) var isAnnouncementDue = false

    /// An empty buffer with `limits`.
    init(limits: BufferLimits) {
        self.limits = limits
    }

    // MARK: Events

    /// The transfer started, with `handle` (`nil` when it completed at once). Ignored after the end.
    mutating func attached(_ handle: Handle?) -> Attachment {
        guard phase != .ended else { return Attachment() }
        var attachment = Attachment(cancel: handle.flatMap { transfer.attach($0) })
        // The consumer may have made room before the handle was known.
        if phase == .pausedForRoom, buffered <= limits.lowWatermark {
            phase = .open
            attachment.resumes = true
        }
        return attachment
    }

    /// The consumer cancelled: the handle to cancel now, if attached; one attached later is cancelled then.
    mutating func cancelled() -> Handle? {
        transfer.cancel()
    }

    /// The consumer set (or, with `nil`, let go of) its arrival handler.
    mutating func arrivalHandlerSet(_ handler: (@Sendable () -> Void)?) {
        onArrival = handler
    }

    /// A piece of `bytes` arrived: it joins the last chunk while the consumer has not taken it and
    /// it has room, starts a new one, or — at the high watermark — is refused.
    mutating func pieceArrived(_ bytes: UnsafeRawBufferPointer) -> PieceStep {
        guard phase != .ended else { return .ignored }
        guard buffered < limits.highWatermark else {
            phase = .pausedForRoom
            return .refused
        }
        let last = items.count - 1
        guard last >= next, case .chunk(var chunk) = items[last], chunk.hasRoom(for: bytes.count) else {
            lastChunkCapacity = GatheredChunk.capacity(forPiece: bytes.count, after: lastChunkCapacity)
            return .startChunk(capacity: lastChunkCapacity)
        }
        chunk.append(bytes)
        items[last] = .chunk(chunk)
        buffered += bytes.count
        return .joined
    }

    /// The chunk a ``PieceStep/startChunk(capacity:)`` asked for, with its first piece: it waits,
    /// announced when the turn ends.
    mutating func chunkStarted(_ chunk: GatheredChunk) {
        items.append(.chunk(chunk))
        buffered += chunk.count
        isAnnouncementDue = true
    }

    /// The loop's turn ended: wake the consumer for the chunks it put in, if not woken since.
    mutating func turnEnded() -> Wake {
        guard isAnnouncementDue else { return .none }
        return takeWaiters()
    }

    /// The head arrived: it waits, and the consumer is woken at once. Ignored after the end.
    mutating func headArrived(_ head: ResponseHead) -> Wake {
        guard phase != .ended else { return .none }
        items.append(.head(head))
        return takeWaiters()
    }

    /// The transfer ended with `result`: it waits (for good), the handle is let go, and the
    /// consumer is woken at once. Ignored after the end.
    mutating func ended(_ result: Result<Response, RequestError>) -> Wake {
        guard phase != .ended else { return .none }
        items.append(.end(result))
        phase = .ended
        _ = transfer.detach()
        return takeWaiters()
    }

    /// The consumer takes the next entry (`nil` when none waits; the end, again, after the end),
    /// and the handle to resume when that read the buffer down to the low watermark while paused.
    mutating func take() -> (entry: Entry?, resume: Handle?) {
        guard next < items.count else { return (nil, nil) }
        let entry = items[next]
        if case .end = entry { return (entry, nil) }  // the end stays: every later take sees it
        next += 1
        if next > 64, next * 2 > items.count {
            items.removeFirst(next)
            next = 0
        }
        guard case .chunk(let chunk) = entry else { return (entry, nil) }
        buffered -= chunk.count
        // Without a handle yet, ``attached(_:)`` resumes instead.
        guard phase == .pausedForRoom, buffered <= limits.lowWatermark, let handle = transfer.target else { return (entry, nil) }
        phase = .open
        return (entry, handle)
    }

    /// A task waits for an item: `true` when one is there already (the task does not wait);
    /// otherwise it is woken with the next arrival.
    mutating func taskWaits(_ task: Waiter) -> Bool {
        if hasItem { return true }
        waitingTask = task
        return false
    }

    // MARK: Readings

    /// Whether an item waits to be taken.
    var hasItem: Bool { next < items.count }

    /// Whether a task waits for an item.
    var hasWaitingTask: Bool { waitingTask != nil }

    /// Whether a cancel came.
    var isCancelled: Bool { transfer.isCancelled }

    /// Whether a handle is attached (and not let go at the end).
    var hasHandle: Bool { transfer.target != nil }

    /// The chunks the consumer has not taken, whose buffers go back to their pool.
    var untakenChunks: [GatheredChunk] {
        items[next...].compactMap { if case .chunk(let chunk) = $0 { chunk } else { nil } }
    }

    // MARK: Private

    /// Who to wake for what was put in; after this no task waits and nothing is due to be announced.
    private mutating func takeWaiters() -> Wake {
        isAnnouncementDue = false
        defer { waitingTask = nil }
        return Wake(task: waitingTask, onArrival: onArrival)
    }
}
