import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A ``DownloadQueue``'s durable state: one record per line, JSON, appended and flushed
/// (`fsync`) before the queue acts on it. A line cut short by a crash is ignored. Opening
/// rewrites the journal as one record per download (a temporary file, flushed, renamed).
///
/// Confined to its queue's lock.
struct QueueJournal {
    /// One line.
    struct Record: Codable, Equatable {
        enum Operation: String, Codable {
            case enqueue, checkpoint, finish, fail, cancel, pause, resume
        }

        var operation: Operation
        var id: UInt64
        /// `enqueue`: the request, without its secrets.
        var url: String?
        var headers: [[String]]?
        var destination: String?
        /// `checkpoint`: what is safely on disk.
        var resume: ResumeData?
        /// `finish`.
        var sha256: String?
        var bytes: Int64?
        /// `fail`: the error's code and message.
        var error: String?
    }

    let url: URL
    private var descriptor: Int32
    /// The state directory's lock file, held (`flock`) while the journal is open: one queue at a
    /// time per directory, in this process or another; the kernel releases it when a process dies.
    private let lock: Int32

    /// Opens the journal in `directory` (created `0700` if missing) and returns its records.
    static func open(in directory: URL) throws(RequestError) -> (QueueJournal, [Record]) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw RequestError(.fileIO, "cannot create the queue's state directory \(directory.path): \(error.localizedDescription)")
        }
        let lock = Glibc.open(directory.appendingPathComponent("lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            if lock >= 0 { Glibc.close(lock) }
            throw RequestError(.fileIO, "the queue state directory \(directory.path) is open in another queue")
        }
        let url = directory.appendingPathComponent("journal")
        let records = (FileManager.default.contents(atPath: url.path) ?? Data())
            .split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
            .compactMap { try? JSONDecoder().decode(Record.self, from: Data($0)) }
        let descriptor = Glibc.open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            Glibc.close(lock)
            throw RequestError(.fileIO, "cannot open the journal \(url.path): \(String(cString: strerror(code)))")
        }
        return (QueueJournal(url: url, descriptor: descriptor, lock: lock), records)
    }

    /// Appends `record` and flushes it.
    func append(_ record: Record) throws(RequestError) {
        try write([record], to: descriptor)
    }

    /// Replaces the journal with `records`: written to a temporary file, flushed and renamed.
    mutating func rewrite(_ records: [Record]) throws(RequestError) {
        let temporary = url.path + ".tmp"
        let fresh = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fresh >= 0 else { throw RequestError(.fileIO, "cannot write \(temporary): \(String(cString: strerror(errno)))") }
        do throws(RequestError) {
            try write(records, to: fresh)
        } catch {
            Glibc.close(fresh)
            throw error
        }
        guard rename(temporary, url.path) == 0 else {
            Glibc.close(fresh)
            throw RequestError(.fileIO, "cannot replace the journal \(url.path): \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
        descriptor = fresh
        _ = lseek(descriptor, 0, SEEK_END)
    }

    /// Closes the journal and gives up the directory's lock.
    func close() {
        Glibc.close(descriptor)
        Glibc.close(lock)
    }

    private func write(_ records: [Record], to descriptor: Int32) throws(RequestError) {
        var data = Data()
        for record in records {
            guard let line = try? JSONEncoder().encode(record) else { continue }
            data.append(line)
            data.append(UInt8(ascii: "\n"))
        }
        let failure = data.withUnsafeBytes { writeAll($0, to: descriptor) }
        guard failure == nil, fsync(descriptor) == 0 else {
            let code = failure ?? errno
            throw RequestError(
                .fileIO, "cannot write the queue's journal \(url.path): \(String(cString: strerror(code)))",
                underlying: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
        }
    }
}
