#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Rebuilding the state from the journal when a queue opens, and what opening found on disk.
extension DownloadQueueState {
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
}
