#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A ``DownloadQueue``'s durable state: one record per line, JSON, appended under the queue's
/// lock and flushed (`fsync`, ``PendingFlush``) outside it, before the queue acts on it, in a
/// ``PrivateDirectory``. Opening reads the records
/// back through ``records(in:)``, which refuses a damaged journal rather than drop a line of it,
/// and rewrites it as one record per download (a new temporary file, flushed, renamed).
///
/// An append that fails (a full disk) is cut off again, so a failed write never leaves half a line
/// for the next append to follow: the only damage a crash can leave is the last line cut short,
/// which ``records(in:)`` ignores.
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
        /// `enqueue`: the request, without its secrets (``StoredURL``: no user info, and no query
        /// when ``omitsQuery``).
        var url: String?
        var headers: [[String]]?
        var destination: String?
        /// `enqueue`: the SHA-256 the file must have, 64 lowercase hexadecimal digits.
        var expectedSHA256: String?
        /// `enqueue`: `true` when ``url`` was journaled without its query, which the program
        /// gives again (``DownloadQueue/RejoinedRequest``) for a later process to send it.
        var omitsQuery: Bool?
        /// `checkpoint`: what is safely on disk.
        var resume: ResumeData?
        /// `finish`.
        var sha256: String?
        var bytes: Int64?
        /// `fail`: the error's code and message.
        var error: String?
    }

    /// The journal's file name in the state directory.
    static let fileName = "journal"
    /// The start of a rewrite's temporary file's name (a random token follows).
    static let temporaryPrefix = "journal.tmp"
    /// The start of the name a damaged journal is kept under, when the options say to set it aside.
    static let damagedPrefix = "journal.damaged-"

    /// The state directory, open for as long as the journal is.
    let directory: PrivateDirectory
    private var descriptor: Int32
    /// The journal's length after its last complete record: where a failed append is cut back to.
    private var length: off_t
    /// The state directory's lock file, held (`flock`) while the journal is open: one queue at a
    /// time per directory, in this process or another; the kernel releases it when a process dies.
    private let lock: Int32

    /// The journal's path.
    var url: URL { directory.url.appendingPathComponent(Self.fileName) }

    /// What opening found.
    struct Opened {
        var journal: QueueJournal
        var records: [Record]
        /// Where a damaged journal was set aside, when it was.
        var setAside: URL?
    }

    /// Opens the journal of the state directory `url` (created `0700` if missing; an existing one
    /// must be this user's alone) and returns its records.
    ///
    /// - Parameter setsAsideDamage: Whether a damaged journal is renamed `journal.damaged-TIME`
    ///   and the queue opened empty; when `false`, opening fails and the journal is left as it is.
    /// - Throws: ``RequestError/Code/fileIO`` when the directory cannot be trusted (see
    ///   ``PrivateDirectory``), is open in another queue, the journal is not a regular file or
    ///   cannot be read or written, or it is damaged (the message names the line).
    static func open(in url: URL, setsAsideDamage: Bool) throws(RequestError) -> Opened {
        let directory = try PrivateDirectory(opening: url, role: "queue state directory")
        let lock: Int32
        switch directory.openFile("lock", O_RDWR | O_CREAT) {
        case .success(let opened): lock = opened
        case .failure(let error): throw QueueJournal.fileError(error.code.rawValue, "cannot open the lock file of \(directory.url.path)")
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(lock)
            throw RequestError(.fileIO, "the queue state directory \(directory.url.path) is open in another queue")
        }
        do throws(RequestError) {
            // What a rewrite interrupted by a crash left (earlier versions used the fixed name `journal.tmp`).
            for name in directory.names where name.hasPrefix(temporaryPrefix) { directory.remove(name) }
            let bytes: Data
            switch directory.contents(of: fileName) {
            case .success(let data): bytes = data ?? Data()
            case .failure(let error): throw QueueJournal.fileError(error.code.rawValue, "cannot read the journal \(directory.url.path)/\(fileName)")
            }
            var replayed: [Record] = []
            var setAside: URL?
            switch records(in: bytes) {
            case .success(let read):
                replayed = read
            case .failure(let damage):
                let path = "\(directory.url.path)/\(fileName)"
                guard setsAsideDamage else {
                    throw RequestError(
                        .fileIO,
                        "the journal \(path) is damaged at \(damage): the queue does not open with a record missing. Repair or remove it, or open with Options.setsAsideDamagedJournal to keep it aside and start empty")
                }
                let kept = damagedPrefix + String(Int(Date().timeIntervalSince1970))
                if let code = directory.rename(fileName, to: kept) { throw QueueJournal.fileError(code.rawValue, "cannot set the damaged journal \(path) aside") }
                directory.sync()
                setAside = directory.url.appendingPathComponent(kept)
            }
            let descriptor: Int32
            switch directory.openFile(fileName, O_WRONLY | O_CREAT | O_APPEND) {
            case .success(let opened): descriptor = opened
            case .failure(let error): throw QueueJournal.fileError(error.code.rawValue, "cannot open the journal \(directory.url.path)/\(fileName)")
            }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                let code = errno
                Glibc.close(descriptor)
                throw QueueJournal.fileError(code, "cannot open the journal \(directory.url.path)/\(fileName)")
            }
            let journal = QueueJournal(directory: directory, descriptor: descriptor, length: status.st_size, lock: lock)
            return Opened(journal: journal, records: replayed, setAside: setAside)
        } catch {
            Glibc.close(lock)
            throw error
        }
    }

    /// Appends `record`, not yet flushed (see ``pendingFlush()``); on failure the journal is cut
    /// back to its last complete record.
    mutating func append(_ record: Record) throws(RequestError) {
        length = try write([record], to: descriptor, after: length, flushing: false)
    }

    /// The flush of every record appended so far, to run once the queue's lock is released. It
    /// works on a duplicate of the journal's descriptor, so that a ``close()`` meanwhile cannot
    /// make it flush another file; when no duplicate can be made (no descriptor left), it flushes
    /// now.
    func pendingFlush() -> PendingFlush {
        let duplicate = dup(descriptor)
        guard duplicate < 0 else { return PendingFlush(descriptor: duplicate, path: url.path) }
        let failure = fsync(descriptor) == 0 ? nil : QueueJournal.fileError(errno, "cannot flush the queue's journal \(url.path)")
        return PendingFlush(failure: failure)
    }

    /// A flush of the journal that runs outside the queue's lock: readers of the queue's state
    /// (``DownloadQueue/downloads``, ``DownloadQueue/progress``) do not wait for the disk.
    struct PendingFlush: Sendable {
        private var descriptor: Int32 = -1
        private var path = ""
        private var failure: RequestError?

        fileprivate init(descriptor: Int32, path: String) {
            self.descriptor = descriptor
            self.path = path
        }

        fileprivate init(failure: RequestError?) {
            self.failure = failure
        }

        /// Flushes with `sync` (`fsync`) and closes the duplicate; call it once. Returns the error
        /// when the disk refused: the records are written, but not known to be on the disk.
        func run(_ sync: (Int32) -> Int32) -> RequestError? {
            guard descriptor >= 0 else { return failure }
            defer { Glibc.close(descriptor) }
            return sync(descriptor) == 0 ? nil : QueueJournal.fileError(errno, "cannot flush the queue's journal \(path)")
        }
    }

    /// Replaces the journal with `records`: written to a new temporary file (`O_EXCL`), flushed
    /// and renamed over it.
    mutating func rewrite(_ records: [Record]) throws(RequestError) {
        let (name, fresh): (String, Int32)
        switch directory.createTemporary(prefix: Self.temporaryPrefix + ".") {
        case .success(let created): (name, fresh) = created
        case .failure(let error): throw QueueJournal.fileError(error.code.rawValue, "cannot write a new journal in \(directory.url.path)")
        }
        let written: off_t
        do throws(RequestError) {
            written = try write(records, to: fresh, after: 0, flushing: true)
            if let code = directory.rename(name, to: Self.fileName) {
                throw QueueJournal.fileError(code.rawValue, "cannot replace the journal \(url.path)")
            }
        } catch {
            Glibc.close(fresh)
            directory.remove(name)
            throw error
        }
        directory.sync()
        _ = fcntl(fresh, F_SETFL, O_APPEND)
        Glibc.close(descriptor)
        descriptor = fresh
        length = written
    }

    /// Closes the journal and gives up the directory's lock.
    func close() {
        Glibc.close(descriptor)
        Glibc.close(lock)
    }

    /// Writes `records` to `descriptor` (whose complete records end at `start`), and flushes them
    /// when `flushing`; returns the new end. On failure, cuts the file back to `start` — and if
    /// that failed too, the next write cuts it first or writes nothing.
    private func write(_ records: [Record], to descriptor: Int32, after start: off_t, flushing: Bool) throws(RequestError) -> off_t {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size == start || ftruncate(descriptor, start) == 0 else {
            throw QueueJournal.fileError(errno, "cannot cut the queue's journal \(url.path) back to its last complete record")
        }
        var data = Data()
        for record in records {
            guard let line = try? JSONEncoder().encode(record) else { continue }
            data.append(line)
            data.append(UInt8(ascii: "\n"))
        }
        let failure = Self.append(data, to: descriptor)
        guard failure == nil, !flushing || fsync(descriptor) == 0 else {
            let code = failure ?? errno
            _ = ftruncate(descriptor, start)
            throw QueueJournal.fileError(code, "cannot write the queue's journal \(url.path)")
        }
        return start + off_t(data.count)
    }

    /// Writes all of `data` at `descriptor`'s position (the journal's end), writing again after a
    /// signal interrupted a write; returns `nil`, or the `errno` of the write that failed (`EIO`
    /// for one that wrote nothing).
    private static func append(_ data: Data, to descriptor: Int32) -> Int32? {
        var rest = data[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? errno : EIO }
            rest = rest.dropFirst(written)
        }
        return nil
    }

    /// A ``RequestError/Code/fileIO`` error saying `what` failed, with the C library's text for the
    /// `errno` value `code` (`strerror_r`, safe across threads). The queue's own: the tier check
    /// builds `Clients/Queue` against CurlBridge's public API, which has no such helper.
    fileprivate static func fileError(_ code: Int32, _ what: String) -> RequestError {
        var text = [CChar](repeating: 0, count: 256)
        // For a number it does not know, glibc writes "Unknown error N" and still returns EINVAL.
        let known = strerror_r(code, &text, text.count) == 0 || text[0] != 0
        let reason = known ? text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : "error \(code)"
        return RequestError(.fileIO, "\(what): \(reason)", underlying: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
    }
}
