#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Scheduling under the concurrency limit, backoff waits, and what a transfer's checkpoints and
// end mean.
extension DownloadQueueState {
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
    /// the bytes on disk.
    func retryDelay(after error: RequestError, attempt: Int) -> Duration? {
        let (now, jitter) = readings()
        return retries.retryDelay(after: .failure(error), attempt: attempt, continuesReceivedBytes: true, jitter: jitter, now: now)
    }
}
