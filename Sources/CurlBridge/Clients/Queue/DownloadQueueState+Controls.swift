#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The program's calls (enqueue, pause, resume, cancel, close), and a start it gave no usable
// request for.
extension DownloadQueueState {
    /// Adds a download of `url` (as journaled: ``StoredURL``) to `destination`; `nil` when every
    /// id has been used.
    mutating func enqueue(
        url: StoredURL, headers: [[String]], destination: URL, expectedSHA256: String? = nil, original: Request
    ) -> (UInt64, [Action])? {
        guard Self.identifiers.contains(nextID) else { return nil }
        let id = nextID
        nextID += 1
        order.append(id)
        var download = QueuedDownload(id: id, url: url.string, destination: destination, state: .waiting, bytesOnDisk: 0)
        download.expectedSHA256 = expectedSHA256
        let entry = Entry(download: download, headers: headers, omitsQuery: url.omitsQuery, original: original)
        entries[id] = entry
        return (id, [.journal(Self.enqueueRecord(entry)), .emit(.changed(id))] + schedule())
    }

    /// The `enqueue` record of `entry`.
    static func enqueueRecord(_ entry: Entry) -> QueueJournal.Record {
        let download = entry.download
        return QueueJournal.Record(
            operation: .enqueue, id: download.id, url: download.url, headers: entry.headers, destination: download.destination.path,
            expectedSHA256: download.expectedSHA256, omitsQuery: entry.omitsQuery ? true : nil)
    }

    /// A download this process did not enqueue could not start: the program gave no request for
    /// it (its journaled URL lacks its query) or an unusable one. It is paused with `error`, its
    /// bytes kept, until ``resume(_:)``.
    ///
    /// A cancel or a pause asked meanwhile (its record already journaled) is honoured: a cancel
    /// leaves it cancelled, its partial file deleted, as the journal will say on replay.
    mutating func couldNotStart(_ id: UInt64, _ error: RequestError) -> [Action] {
        guard var entry = entries[id], entry.download.state == .running else { return [] }
        let (cancelAsked, pauseAsked) = (entry.cancelAsked, entry.pauseAsked)
        entry.cancelAsked = false
        entry.pauseAsked = false
        entry.download.error = error
        var actions: [Action] = []
        if cancelAsked {
            entry.download.state = .cancelled
            if let partial = entry.resume { actions.append(.discard(partial)) }
            entry.resume = nil
        } else {
            entry.download.state = .paused
            if !pauseAsked { actions.append(.journal(.init(operation: .pause, id: id))) }
        }
        entries[id] = entry
        return actions + [.emit(.changed(id))] + schedule()
    }

    mutating func pause(_ id: UInt64) -> [Action] {
        guard var entry = entries[id], !entry.download.state.isFinal, entry.download.state != .paused else { return [] }
        if entry.download.state == .running {
            entry.pauseAsked = true
            entries[id] = entry
            return [.journal(.init(operation: .pause, id: id)), .stop(id: id)]
        }
        entry.download.state = .paused
        let stopsWait = Self.endRetryWait(&entry)
        entries[id] = entry
        return [.journal(.init(operation: .pause, id: id))] + stopsWait + [.emit(.changed(id))]
    }

    mutating func resume(_ id: UInt64) -> [Action] {
        guard var entry = entries[id] else { return [] }
        if entry.download.state == .running, entry.pauseAsked {
            entry.pauseAsked = false
            entries[id] = entry
            return [.journal(.init(operation: .resume, id: id))]
        }
        guard entry.download.state == .paused else { return [] }
        entry.download.state = .waiting
        entry.download.error = nil
        entry.failures = 0
        entries[id] = entry
        return [.journal(.init(operation: .resume, id: id)), .emit(.changed(id))] + schedule()
    }

    mutating func cancel(_ id: UInt64) -> [Action] {
        guard var entry = entries[id], !entry.download.state.isFinal else { return [] }
        if entry.download.state == .running {
            entry.cancelAsked = true
            entries[id] = entry
            return [.journal(.init(operation: .cancel, id: id)), .stop(id: id)]
        }
        entry.download.state = .cancelled
        let partial = entry.resume
        entry.resume = nil
        let stopsWait = Self.endRetryWait(&entry)
        entries[id] = entry
        return [.journal(.init(operation: .cancel, id: id))] + stopsWait + (partial.map { [.discard($0)] } ?? []) + [.emit(.changed(id))]
    }

    /// The queue closes: every running transfer stops with its bytes kept, and its end leaves it
    /// waiting for the next queue on the directory (not paused, not failed); nothing starts again.
    mutating func close() -> [Action] {
        isClosing = true
        var stopsWaits: [Action] = []
        for id in order where entries[id]?.retryTimer != nil { stopsWaits += Self.endRetryWait(&entries[id]!) }
        return stopsWaits + order.filter { entries[$0]?.download.state == .running }.map { .stop(id: $0) }
    }
}
