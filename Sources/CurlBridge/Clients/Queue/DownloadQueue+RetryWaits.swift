import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The backoff timers of downloads that wait to retry.
extension DownloadQueue {
    /// Starts download `id`'s backoff `timer`: once `delay` has passed, the machine may start it
    /// again. Not started when the machine has ended that wait meanwhile (a pause, a cancel, a
    /// close), so every timer that runs is one a later decision can cancel.
    func waitToRetry(_ id: UInt64, _ delay: Duration, timer: UInt64) {
        retryWaitDecided(id, delay)
        let item = DispatchWorkItem { [weak self] in self?.retryWaitRanOut(id, timer: timer) }
        let isCurrent = state.withLock { shared in
            guard shared.phase == .open, shared.machine.entries[id]?.retryTimer == timer else { return false }
            shared.retryWaits[id] = (timer, item)
            return true
        }
        guard isCurrent else { return }
        // Dispatch clamps a deadline in seconds that would overflow (a `Retry-After` of centuries).
        timers.asyncAfter(deadline: .now() + delay / .seconds(1), execute: item)
    }

    /// Download `id`'s backoff `timer` ran out. It may be a timer of an earlier wait that had
    /// already started running when a pause, a cancel or a newer wait ended it: the machine then
    /// changes nothing, and the download's current wait stays.
    func retryWaitRanOut(_ id: UInt64, timer: UInt64) {
        state.withLock { shared in
            if shared.retryWaits[id]?.timer == timer { shared.retryWaits[id] = nil }
        }
        act { $0.retryWaitEnded(id, timer: timer) }
    }

    /// The backoff waits not yet run out or cancelled (a test's check that none is left).
    var pendingRetryWaits: Int { state.withLock { $0.retryWaits.count } }
}
