import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Closing: the running transfers stop, then the journal closes and the directory is released.
extension DownloadQueue {
    /// Closes the queue and returns once its state directory is released: its running transfers
    /// stop, each with its bytes on disk journaled (they wait for the next queue on the directory,
    /// which resumes them), the journal is closed, the event streams end and blocked waits return.
    /// A queue opened on the directory right after finds every download where this one left it.
    ///
    /// Once it is called, ``enqueue(_:to:expectedSHA256:)`` throws and the other calls do nothing. Calling it
    /// again waits for the same end. Blocks for as long as the transfers take to stop, usually a
    /// few milliseconds: in a Swift task, `await close()` instead.
    @available(*, noasync, message: "use await close()")
    public func close() {
        let closed = DispatchSemaphore(value: 0)
        beginClosing { closed.signal() }
        closed.wait()
    }

    /// Closes the queue as ``close()`` does, suspending instead of blocking until its state
    /// directory is released.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            beginClosing { continuation.resume() }
        }
    }

    /// Stops the running transfers; `whenClosed` runs once the last of them has ended and the
    /// directory is released (at once, when it already is).
    func beginClosing(then whenClosed: @escaping @Sendable () -> Void) {
        let (actions, isClosed) = state.withLock { shared -> ([DownloadQueueState.Action], Bool) in
            guard shared.phase != .closed else { return ([], true) }
            shared.closeWaiters.append(whenClosed)
            guard shared.phase == .open else { return ([], false) }
            shared.phase = .closing
            return (shared.machine.close(), false)
        }
        if isClosed {
            whenClosed()
            return
        }
        perform(actions)
        finishClosingIfIdle()
    }

    /// Once a closing queue has no transfer left: closes the journal (releasing the directory),
    /// ends the event streams after the events already sent, and wakes every waiter.
    func finishClosingIfIdle() {
        let woken = state.withLock { shared -> [@Sendable () -> Void] in
            guard shared.phase == .closing, shared.machine.running == 0 else { return [] }
            shared.phase = .closed
            shared.journal?.close()
            shared.journal = nil
            let streams = Array(shared.streams.values)
            shared.streams = [:]
            delivery.async { for continuation in streams { continuation.finish() } }
            let signals = shared.waiters.map(\.signal)
            shared.waiters = []
            defer { shared.closeWaiters = [] }
            return shared.closeWaiters + signals.map { signal in { signal.signal() } }
        }
        for wake in woken { wake() }
    }
}
