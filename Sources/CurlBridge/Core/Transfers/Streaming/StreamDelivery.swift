/// Where a ``StreamTask``'s delivery to the caller's handlers is, as a value: its owner keeps it
/// under a lock and feeds it the task's events (pause, resume, cancel, a drain asked for, an item
/// taken); each method says what the owner does next — schedule a drain, take an item, hand it
/// to a handler, drop it, or complete. No I/O, no handler calls.
struct StreamDelivery: Equatable {
    /// Whether a drain of the buffer runs.
    enum Phase: Equatable {
        /// No drain is scheduled or running.
        case idle
        /// A drain is scheduled or running on the task's queue.
        case draining
        /// The end was taken: nothing is delivered any more.
        case complete
    }

    /// What the drain does with the item it took.
    enum Handover: Equatable {
        /// Nothing was there: the drain stops.
        case stop
        /// Hand the head or chunk to its handler.
        case deliver
        /// Drop the head or chunk: delivery was cancelled.
        case drop
        /// Hand the end to `onComplete`, as a cancellation when `asCancelled`.
        case complete(asCancelled: Bool)
    }

    /// What a drain takes, by kind.
    enum Taken: Equatable {
        case nothing, head, chunk, end
    }

    /// Whether a drain runs, or delivery is over.
    private(set) var phase = Phase.idle
    /// The caller paused delivery.
    private(set) var isPaused = false
    /// The caller cancelled: heads and chunks are dropped, the end reports a cancellation.
    private(set) var isCancelled = false

    /// The caller paused delivery: the drain stops before its next item.
    mutating func paused() {
        isPaused = true
    }

    /// The caller resumed delivery (then asks for a drain).
    mutating func resumed() {
        isPaused = false
    }

    /// The caller cancelled (then resumes, so that the end is delivered).
    mutating func cancelled() {
        isCancelled = true
    }

    /// Items may wait: whether to schedule a drain (none runs, delivery is not paused nor complete).
    mutating func drainAsked() -> Bool {
        guard phase == .idle, !isPaused else { return false }
        phase = .draining
        return true
    }

    /// The drain is about to take the next item: whether it may. When not (paused, or complete),
    /// the drain stops.
    mutating func drainMayTake() -> Bool {
        guard phase == .draining, !isPaused else {
            if phase == .draining { phase = .idle }
            return false
        }
        return true
    }

    /// The drain took `taken`: what to do with it.
    mutating func drainTook(_ taken: Taken) -> Handover {
        guard phase == .draining else { return .stop }
        switch taken {
        case .nothing:
            phase = .idle
            return .stop
        case .head, .chunk:
            return isCancelled ? .drop : .deliver
        case .end:
            phase = .complete
            return .complete(asCancelled: isCancelled)
        }
    }
}
