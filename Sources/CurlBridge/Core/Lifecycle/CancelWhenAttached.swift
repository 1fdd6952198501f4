/// "Cancel now, or as soon as it is attached", for work that a cancel may reach before the work
/// exists (a transfer not started yet, an interceptor task not kept yet). A value its owner keeps
/// under its own lock: each method says what to cancel, and the owner cancels it after the lock.
///
/// A cancel stays: a target attached after it is cancelled on attach. Every cancel returns the
/// attached target (cancelling twice is harmless for the targets that use it).
struct CancelWhenAttached<Target> {
    /// The attached target, until it is detached.
    private(set) var target: Target?
    /// Whether a cancel came.
    private(set) var isCancelled = false

    /// Attaches `target`; returns it if it must be cancelled now, because a cancel came first.
    mutating func attach(_ target: Target) -> Target? {
        self.target = target
        return isCancelled ? target : nil
    }

    /// Cancels: returns the attached target to cancel now, if any; one attached later is
    /// cancelled when it is.
    mutating func cancel() -> Target? {
        isCancelled = true
        return target
    }

    /// Lets go of the target (its work is over), returning it.
    mutating func detach() -> Target? {
        defer { target = nil }
        return target
    }
}
