import Foundation

/// The decisions of a ``DownloadQueue``, as a value: which download starts, what a transfer's
/// end means, what is journaled and reported. Each method changes the state and returns the
/// actions for the queue to perform, in order; it does no I/O, so it is tested without any.
struct DownloadQueueState {
    /// One download.
    struct Entry {
        var download: QueuedDownload
        /// The request as journaled (no secrets): method `GET`, URL, header lines.
        var headers: [[String]]
        /// Whether the journaled URL lacks its query: then only ``original`` or the program's
        /// ``DownloadQueue/RejoinedRequest`` can send it.
        var omitsQuery = false
        /// The caller's own request, secrets included, while this process lives.
        var original: Request?
        /// What is safely on disk, as the last checkpoint said.
        var resume: ResumeData?
        /// Failures in a row that it was started again after.
        var failures = 0
        /// The backoff timer it waits out before it may start again, after a failure the
        /// ``RetryPolicy`` retries; `nil` when it may start as soon as a slot is free.
        var retryTimer: UInt64?
        /// A pause was asked while it ran: its end pauses it.
        var pauseAsked = false
        /// A cancel was asked while it ran.
        var cancelAsked = false
    }

    enum Action: Equatable {
        case journal(QueueJournal.Record)
        case start(id: UInt64)
        /// Start a timer of `delay` whose end is ``retryWaitEnded(_:timer:)``: the download waits
        /// out the ``RetryPolicy``'s backoff before it may start again.
        case retryAfter(id: UInt64, delay: Duration, timer: UInt64)
        /// Cancel the download's backoff `timer`: it was paused, cancelled or the queue closed. The
        /// timer is named so that an action performed late cannot cancel a newer wait.
        case cancelRetryWait(id: UInt64, timer: UInt64)
        /// Stop the running transfer, producing resume data.
        case stop(id: UInt64)
        /// Delete a partial file nobody will resume.
        case discard(ResumeData)
        case emit(Event)
    }

    /// What the queue reports, without its payloads' heavy parts.
    enum Event: Equatable {
        case changed(UInt64)
        case diskFull(String)
    }

    private(set) var entries: [UInt64: Entry] = [:]
    /// Ids in the order they were enqueued.
    private(set) var order: [UInt64] = []
    let concurrency: Int
    /// Whether, and after how long, a failed transfer starts again.
    let retries: RetryPolicy
    /// The jitter and wall clock the retry decisions read.
    let readings: Readings
    private(set) var nextID: UInt64 = 1
    /// The last backoff timer handed out: each wait has its own, so a late one is told apart.
    private var lastTimer: UInt64 = 0
    /// The ids a download can have: never `UInt64.max`, so that the next id always exists.
    static let identifiers: ClosedRange<UInt64> = 1...(UInt64.max - 1)
    /// The queue is closing: nothing new starts, and a transfer that `close()` stopped waits for
    /// the next queue on the directory.
    private(set) var isClosing = false

    init(concurrency: Int, retries: RetryPolicy, readings: Readings = .system) {
        self.concurrency = max(1, concurrency)
        self.retries = retries
        self.readings = readings
    }

    var running: Int { entries.values.filter { $0.download.state == .running }.count }

    // MARK: Rejoining

    /// Rebuilds the state from the journal's records, as ``QueueJournal/records(in:)`` checked
    /// them; every download that was running waits again.
    mutating func replay(_ records: [QueueJournal.Record]) {
        for record in records where Self.identifiers.contains(record.id) {
            nextID = max(nextID, record.id + 1)
            switch record.operation {
            case .enqueue:
                guard let url = record.url, let destination = record.destination else { continue }
                if entries[record.id] == nil { order.append(record.id) }
                var download = QueuedDownload(
                    id: record.id, url: url, destination: URL(fileURLWithPath: destination), state: .waiting, bytesOnDisk: 0)
                download.expectedSHA256 = record.expectedSHA256
                entries[record.id] = Entry(download: download, headers: record.headers ?? [], omitsQuery: record.omitsQuery ?? false)
            case .checkpoint:
                guard let resume = record.resume else { continue }
                entries[record.id]?.resume = resume
                entries[record.id]?.download.bytesOnDisk = resume.bytesOnDisk
                entries[record.id]?.download.expectedLength = resume.expectedLength
            case .finish:
                entries[record.id]?.download.state = .finished
                entries[record.id]?.download.sha256 = record.sha256
                if let bytes = record.bytes { entries[record.id]?.download.bytesOnDisk = bytes }
                entries[record.id]?.resume = nil
            case .fail:
                entries[record.id]?.download.state = .failed
                entries[record.id]?.download.error = RequestError(.transportFailure, record.error ?? "failed in an earlier run")
            case .cancel:
                entries[record.id]?.download.state = .cancelled
                entries[record.id]?.resume = nil
            case .pause:
                if entries[record.id]?.download.state.isFinal == false { entries[record.id]?.download.state = .paused }
            case .resume:
                if entries[record.id]?.download.state == .paused { entries[record.id]?.download.state = .waiting }
            }
        }
    }

    /// The journal's records for the state as it is: one `enqueue` and at most one more per download.
    var compacted: [QueueJournal.Record] {
        order.compactMap { entries[$0] }.flatMap { entry -> [QueueJournal.Record] in
            let download = entry.download
            var records = [Self.enqueueRecord(entry)]
            switch download.state {
            case .finished: records.append(.init(operation: .finish, id: download.id, sha256: download.sha256, bytes: download.bytesOnDisk))
            case .failed: records.append(.init(operation: .fail, id: download.id, error: download.error?.message))
            case .cancelled: records.append(.init(operation: .cancel, id: download.id))
            case .waiting, .running, .paused:
                if let resume = entry.resume { records.append(.init(operation: .checkpoint, id: download.id, resume: resume)) }
                if download.state == .paused { records.append(.init(operation: .pause, id: download.id)) }
            }
            return records
        }
    }

    /// A rejoined download whose last checkpoint covered the whole file was being moved into place
    /// when the process ended: it is finished now, moved by the queue, its file's digest `sha256`.
    mutating func finishedOnRejoin(_ id: UInt64, sha256: String?) -> [Action] {
        guard var entry = entries[id], let resume = entry.resume else { return [] }
        entry.download.state = .finished
        entry.download.bytesOnDisk = resume.bytesOnDisk
        entry.download.sha256 = sha256
        entry.resume = nil
        entries[id] = entry
        return [.journal(.init(operation: .finish, id: id, sha256: sha256, bytes: resume.bytesOnDisk))]
    }

    /// A rejoined download whose last checkpoint covered the whole file, but whose file does not
    /// have the digest it must have: failed with `error`; the queue has deleted the file.
    mutating func failedOnRejoin(_ id: UInt64, _ error: RequestError) -> [Action] {
        guard var entry = entries[id], !entry.download.state.isFinal else { return [] }
        entry.download.state = .failed
        entry.download.error = error
        entry.download.bytesOnDisk = 0
        entry.resume = nil
        entries[id] = entry
        return [.journal(.init(operation: .fail, id: id, error: "\(error.code): \(error.message)"))]
    }

    // MARK: The caller

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
    private static func enqueueRecord(_ entry: Entry) -> QueueJournal.Record {
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

    /// Ends `entry`'s backoff wait, if it has one: the action that cancels its timer.
    private static func endRetryWait(_ entry: inout Entry) -> [Action] {
        guard let timer = entry.retryTimer else { return [] }
        entry.retryTimer = nil
        return [.cancelRetryWait(id: entry.download.id, timer: timer)]
    }

    /// Every id, in order.
    var ids: [UInt64] { order }

    /// The queue closes: every running transfer stops with its bytes kept, and its end leaves it
    /// waiting for the next queue on the directory (not paused, not failed); nothing starts again.
    mutating func close() -> [Action] {
        isClosing = true
        var stopsWaits: [Action] = []
        for id in order where entries[id]?.retryTimer != nil { stopsWaits += Self.endRetryWait(&entries[id]!) }
        return stopsWaits + order.filter { entries[$0]?.download.state == .running }.map { .stop(id: $0) }
    }

    // MARK: Transfers

    /// The downloads to start now: waiting ones, in order, while slots are free.
    mutating func schedule() -> [Action] {
        guard !isClosing else { return [] }
        var free = concurrency - running
        var actions: [Action] = []
        for id in order where free > 0 {
            guard entries[id]?.download.state == .waiting, entries[id]?.retryTimer == nil else { continue }
            entries[id]!.download.state = .running
            actions += [.start(id: id), .emit(.changed(id))]
            free -= 1
        }
        return actions
    }

    /// The backoff timer `timer` of download `id` ran out: it may start again. A timer that is not
    /// the download's current one (cancelled, or from an earlier wait) changes nothing.
    mutating func retryWaitEnded(_ id: UInt64, timer: UInt64) -> [Action] {
        guard entries[id]?.retryTimer == timer, entries[id]?.download.state == .waiting else { return [] }
        entries[id]!.retryTimer = nil
        return schedule()
    }

    /// A checkpoint: `resume`'s bytes are safely on disk.
    mutating func checkpoint(_ id: UInt64, _ resume: ResumeData) -> [Action] {
        guard var entry = entries[id], entry.download.state == .running else { return [] }
        let resume = Self.journaled(resume, of: entry)
        entry.resume = resume
        entry.download.bytesOnDisk = resume.bytesOnDisk
        entry.download.expectedLength = resume.expectedLength
        entries[id] = entry
        return [.journal(.init(operation: .checkpoint, id: id, resume: resume))]
    }

    /// `resume` as the journal keeps it: with the download's journaled URL, so that what the
    /// enqueue record leaves out (user info, a query) is not written beside it.
    private static func journaled(_ resume: ResumeData, of entry: Entry) -> ResumeData {
        var resume = resume
        resume.url = entry.download.url
        return resume
    }

    /// A transfer ended.
    mutating func ended(_ id: UInt64, _ result: Result<DownloadResponse, RequestError>) -> [Action] {
        guard var entry = entries[id], entry.download.state == .running else { return [] }
        var actions: [Action] = []
        switch result {
        case .success(let response):
            entry.download.state = .finished
            entry.download.sha256 = response.sha256
            entry.download.bytesOnDisk = response.bytesWritten
            entry.download.expectedLength = response.bytesWritten
            entry.resume = nil
            if entry.cancelAsked { entry.cancelAsked = false }  // too late: it finished
            actions.append(.journal(.init(operation: .finish, id: id, sha256: response.sha256, bytes: response.bytesWritten)))
        case .failure(let error):
            if let resume = error.resumeData.map({ Self.journaled($0, of: entry) }) {
                entry.resume = resume
                entry.download.bytesOnDisk = resume.bytesOnDisk
                actions.append(.journal(.init(operation: .checkpoint, id: id, resume: resume)))
            } else if error.code != .cancelled || entry.cancelAsked {
                // Its bytes are gone (deleted by the download): a restart begins from zero.
                entry.resume = nil
                entry.download.bytesOnDisk = 0
            }
            entry.download.error = error
            if entry.cancelAsked {
                entry.download.state = .cancelled
                if let partial = entry.resume { actions.append(.discard(partial)) }
                entry.resume = nil
            } else if entry.pauseAsked {
                entry.download.state = .paused
            } else if isClosing, error.code == .cancelled {
                entry.download.state = .waiting
            } else if error.isDiskFull {
                entry.download.state = .paused
                actions.append(.journal(.init(operation: .pause, id: id)))
            } else if let delay = retryDelay(after: error, attempt: entry.failures + 1) {
                entry.failures += 1
                entry.download.state = .waiting
                lastTimer += 1
                entry.retryTimer = lastTimer
                actions.append(.retryAfter(id: id, delay: delay, timer: lastTimer))
            } else {
                entry.download.state = .failed
                actions.append(.journal(.init(operation: .fail, id: id, error: "\(error.code): \(error.message)")))
            }
        }
        entry.pauseAsked = false
        entries[id] = entry
        actions.append(.emit(.changed(id)))
        if case .failure(let error) = result, error.isDiskFull {
            actions += pauseAllForDiskFull(error)
        }
        return actions + schedule()
    }

    /// A full disk pauses every download that is not final (running ones stop with their bytes).
    private mutating func pauseAllForDiskFull(_ error: RequestError) -> [Action] {
        var actions: [Action] = [.emit(.diskFull(error.message))]
        for id in order {
            guard let state = entries[id]?.download.state else { continue }
            switch state {
            case .waiting:
                entries[id]!.download.state = .paused
                actions += [.journal(.init(operation: .pause, id: id))] + Self.endRetryWait(&entries[id]!) + [.emit(.changed(id))]
            case .running:
                entries[id]!.pauseAsked = true
                actions += [.journal(.init(operation: .pause, id: id)), .stop(id: id)]
            case .paused, .finished, .failed, .cancelled:
                break
            }
        }
        return actions
    }

    /// The ``RetryPolicy``'s wait before the next try of a transfer that failed with `error` on
    /// its `attempt`th try in a row, or `nil` when it is not retried: the next try continues from
    /// the bytes on disk. An error status is judged as the response it carries, so that the
    /// policy's status codes and the server's `Retry-After` apply.
    func retryDelay(after error: RequestError, attempt: Int) -> Duration? {
        let outcome: AttemptOutcome =
            if error.code == .unacceptableStatus, let response = error.response { .response(response) } else { .failure(error) }
        return retries.retryDelay(
            after: outcome, attempt: attempt, continuesReceivedBytes: true, jitter: readings.jitter(), now: readings.date())
    }

    /// The whole queue's progress.
    var progress: DownloadQueueProgress {
        let counted = entries.values.map(\.download).filter { $0.state != .cancelled }
        let lengths = counted.map(\.expectedLength)
        return DownloadQueueProgress(
            downloads: counted.count, finished: counted.filter { $0.state == .finished }.count,
            bytesOnDisk: counted.reduce(0) { ByteCount.sum($0, $1.bytesOnDisk) },
            expectedBytes: lengths.contains(nil) ? nil : lengths.reduce(0) { ByteCount.sum($0, $1 ?? 0) })
    }
}
