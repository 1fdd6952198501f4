import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file a download writes: a temporary (partial) file in the destination's directory, written
/// with `write(2)` as bytes arrive and, once complete, flushed and renamed over the destination.
///
/// Not `Sendable` by itself: a ``DownloadOperation`` keeps it behind its lock.
struct DownloadFile {
    /// The partial file.
    let url: URL
    /// Its open descriptor, write-only.
    private(set) var descriptor: Int32

    /// Creates a new, empty partial file next to `destination`.
    static func create(besides destination: URL) throws(RequestError) -> DownloadFile {
        let directory = destination.deletingLastPathComponent()
        var random = SystemRandomNumberGenerator()
        let suffix = String(random.next(), radix: 36)
        let url = directory.appendingPathComponent(".\(destination.lastPathComponent).\(suffix).curlbridge-partial")
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            throw fileError(code, "cannot create the partial file \(url.path.debugDescription)")
        }
        return DownloadFile(url: url, descriptor: descriptor)
    }

    /// Opens an existing partial file and keeps its first `length` bytes; `nil` when it is missing
    /// or shorter than that.
    static func reopen(_ url: URL, keeping length: Int64) -> DownloadFile? {
        let descriptor = open(url.path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int64(status.st_size) >= length,
            ftruncate(descriptor, off_t(length)) == 0, lseek(descriptor, off_t(length), SEEK_SET) == off_t(length)
        else {
            close(descriptor)
            return nil
        }
        return DownloadFile(url: url, descriptor: descriptor)
    }

    /// Empties the file, to start again from byte 0.
    func truncate() throws(RequestError) {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            let code = errno
            throw Self.fileError(code, "cannot empty the partial file \(url.path.debugDescription)")
        }
    }

    /// Writes all of `bytes` at the current position.
    func write(_ bytes: UnsafeRawBufferPointer) throws(RequestError) {
        if let code = writeAll(bytes, to: descriptor) {
            throw Self.fileError(code, "writing the partial file \(url.path.debugDescription) failed")
        }
    }

    /// Flushes the bytes to disk, closes the file and moves it to `destination` atomically —
    /// replacing what is there, or failing with ``RequestError/Code/destinationExists`` when
    /// `replacing` is `false` — then flushes the directory entry.
    mutating func commit(to destination: URL, replacing: Bool) throws(RequestError) {
        guard fsync(descriptor) == 0 else {
            let code = errno
            throw Self.fileError(code, "flushing the partial file \(url.path.debugDescription) failed")
        }
        closeDescriptor()
        if replacing {
            guard rename(url.path, destination.path) == 0 else {
                let code = errno
                throw Self.fileError(code, "cannot move the download to \(destination.path.debugDescription)")
            }
        } else {
            // link(2) fails with EEXIST rather than replace: an atomic "move unless it exists".
            guard link(url.path, destination.path) == 0 else {
                if errno == EEXIST {
                    throw RequestError(.destinationExists, "\(destination.path.debugDescription) appeared during the download")
                }
                let code = errno
                throw Self.fileError(code, "cannot move the download to \(destination.path.debugDescription)")
            }
            unlink(url.path)
        }
        let directory = open(destination.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// Closes the file, keeping it (for resume data).
    mutating func closeDescriptor() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    /// Flushes what was written to the disk (`fsync`).
    func flush() throws(RequestError) {
        guard fsync(descriptor) == 0 else {
            let code = errno
            throw Self.fileError(code, "flushing the partial file \(url.path.debugDescription) failed")
        }
    }

    /// Closes and deletes the file.
    mutating func discard() {
        closeDescriptor()
        unlink(url.path)
    }

    /// A ``RequestError/Code/fileIO`` error saying `what` failed, with the text of `errno` `code`.
    static func fileError(_ code: Int32, _ what: String) -> RequestError {
        RequestError(
            .fileIO, "\(what): \(String(cString: strerror(code)))",
            underlying: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
    }
}
