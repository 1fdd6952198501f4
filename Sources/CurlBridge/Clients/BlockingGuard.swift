import Dispatch
import Foundation

/// Decides whether a blocking wait is safe on the current thread.
enum BlockingGuard {
    /// Marks `DispatchQueue.main` (and the queues that target it), so the check also holds on
    /// Linux after `dispatchMain()`, where main-queue work runs on a thread that is not the main
    /// thread.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Why a blocking call must not wait here, or `nil` when it may.
    static func refusal(_ policy: BlockingClient.Policy) -> String? {
        if Transport.isOnTransportQueue {
            return "a blocking call on a CurlBridge transport's own queue would deadlock"
        }
        if !policy.allowsMainThread {
            if Thread.isMainThread {
                return "a blocking call on the main thread would freeze it; call from a worker thread, use AsyncClient or CallbackClient, or allow it with Policy(allowsMainThread: true) in a command-line program"
            }
            if DispatchQueue.getSpecific(key: mainQueueKey) == true {
                return "a blocking call on the main queue would freeze it; call from a worker thread, use AsyncClient or CallbackClient, or allow it with Policy(allowsMainThread: true) in a command-line program"
            }
        }
        if !policy.allowsInsideTasks, withUnsafeCurrentTask(body: { $0 != nil }) {
            return "a blocking call inside a Swift concurrency task starves the cooperative thread pool; use AsyncClient, or allow it with Policy(allowsInsideTasks: true)"
        }
        return nil
    }
}
