import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Blocking waits for downloads to settle.
extension DownloadQueue {
    /// Blocks until download `id` is finished, failed or cancelled, or the queue is closed, and
    /// returns it as it then is. Refused (a
    /// ``RequestError/Code/blockingRefused``) on the main thread and inside a Swift task.
    @available(*, noasync, message: "use events, or onEvent(queue:_:)")
    public func wait(for id: UInt64) throws(RequestError) -> QueuedDownload {
        try block(until: [id])
        guard let download = download(id) else { throw RequestError(.transportFailure, "the queue has no download \(id)") }
        return download
    }

    /// Blocks until every download is finished, failed or cancelled (paused ones too: a full disk
    /// ends the wait), or the queue is closed, and returns them. Refused as ``wait(for:)`` is.
    @available(*, noasync, message: "use events, or onEvent(queue:_:)")
    public func waitForAll() throws(RequestError) -> [QueuedDownload] {
        try block(until: nil)
        return downloads
    }

    func block(until ids: Set<UInt64>?) throws(RequestError) {
        if let refusal = BlockingClient.Policy().refusal() {
            throw RequestError(.blockingRefused, refusal)
        }
        let signal = DispatchSemaphore(value: 0)
        let isDone = state.withLock { shared in
            if shared.phase == .closed || Self.isSettled(ids, shared.machine) { return true }
            shared.waiters.append((ids, signal))
            return false
        }
        if !isDone { signal.wait() }
    }

    /// Whether `ids` (every download, when `nil`) are final — or, for all, final or paused.
    static func isSettled(_ ids: Set<UInt64>?, _ machine: DownloadQueueState) -> Bool {
        if let ids { return ids.allSatisfy { machine.entries[$0].map(\.download.state.isFinal) ?? true } }
        return machine.entries.values.allSatisfy { $0.download.state.isFinal || $0.download.state == .paused }
    }

    func wakeWaiters() {
        let ready = state.withLock { shared -> [DispatchSemaphore] in
            let machine = shared.machine
            let (done, waiting) = shared.waiters.partitioned { Self.isSettled($0.ids, machine) }
            shared.waiters = waiting
            return done.map(\.signal)
        }
        for signal in ready { signal.signal() }
    }
}

extension Array {
    /// The elements that satisfy `isIncluded`, and the others, each in order.
    fileprivate func partitioned(_ isIncluded: (Element) -> Bool) -> ([Element], [Element]) {
        var included: [Element] = []
        var excluded: [Element] = []
        for element in self {
            if isIncluded(element) { included.append(element) } else { excluded.append(element) }
        }
        return (included, excluded)
    }
}
