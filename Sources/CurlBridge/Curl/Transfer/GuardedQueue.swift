import Dispatch

/// A queue a blocking call must not wait on, as marked on it with `setSpecific`: both kinds under
/// one key, so that the blocking guard asks once per call (`DispatchQueue.getSpecific` walks the
/// current queue and the queues it targets: about 90 instructions a lookup, callgrind).
enum GuardedQueue {
    /// A transport's loop queue: a wait there would deadlock.
    case transportLoop
    /// The main queue, or a queue that targets it: a wait there would freeze the program's run
    /// loop (also on Linux after `dispatchMain()`, where main-queue work runs off the main thread).
    case main

    /// The key the marks are set under. Making it marks `DispatchQueue.main`, so every reader of
    /// the key sees the main queue marked: the first transport made (which marks its loop's
    /// queue) or the first blocking check, whichever comes first.
    static let key: DispatchSpecificKey<GuardedQueue> = {
        let key = DispatchSpecificKey<GuardedQueue>()
        DispatchQueue.main.setSpecific(key: key, value: .main)
        return key
    }()

    /// The mark of the current queue, or of the nearest queue it targets that has one; `nil` off
    /// every marked queue.
    static var current: GuardedQueue? {
        DispatchQueue.getSpecific(key: key)
    }
}
