import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Asking the machine, and performing the actions it returns.
extension DownloadQueue {
    /// Asks the machine and performs its actions; nothing once the queue is closed.
    ///
    /// Its records are appended under the lock, with the decision: a state anyone can see is
    /// already in the journal, and ``close()`` never closes the journal between a decision and
    /// its record. They are flushed to the disk after the lock is released — readers of the state
    /// never wait for the disk — and before any other action runs, or this returns.
    func act(_ decide: (inout DownloadQueueState) -> [DownloadQueueState.Action]) {
        let (actions, appendFailure, flush) = state.withLock {
            shared -> ([DownloadQueueState.Action], RequestError?, QueueJournal.PendingFlush?) in
            guard shared.journal != nil else { return ([], nil, nil) }
            let actions = decide(&shared.machine)
            var failure: RequestError?
            for case .journal(let record) in actions {
                do throws(RequestError) {
                    try shared.journal?.append(record)
                } catch {
                    failure = failure ?? error
                }
            }
            let appended = actions.contains { if case .journal = $0 { true } else { false } }
            return (actions, failure, appended ? shared.journal?.pendingFlush() : nil)
        }
        // A journal that cannot be written pauses nothing, but is reported.
        let flushFailure = flush?.run(sync)
        if let failure = appendFailure ?? flushFailure { emit(.diskFull(failure)) }
        perform(actions)
    }

    func perform(_ actions: [DownloadQueueState.Action]) {
        for action in actions {
            switch action {
            case .journal:
                continue  // appended by `act`, under the lock, with the decision
            case .start(let id):
                start(id)
            case .retryAfter(let id, let delay, let timer):
                waitToRetry(id, delay, timer: timer)
            case .cancelRetryWait(let id, let timer):
                let wait = state.withLock { shared in
                    shared.retryWaits[id]?.timer == timer ? shared.retryWaits.removeValue(forKey: id) : nil
                }
                wait?.item.cancel()
            case .stop(let id):
                let task = state.withLock { $0.tasks[id] }
                task?.cancel(producingResumeData: { _ in })
            case .discard(let resume):
                resume.discard()
            case .emit(.changed(let id)):
                if let download = download(id) { emit(.changed(download)) }
            case .emit(.diskFull(let message)):
                emit(.diskFull(RequestError(.fileIO, message)))
            }
        }
        wakeWaiters()
    }
}
