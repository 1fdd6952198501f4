#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The file a download writes: a temporary (partial) file in the destination's directory, written
/// with `write(2)` as bytes arrive and, once complete, flushed and renamed over the destination.
///
/// The destination's directory is the caller's choice and may be shared (`~/Downloads`, `/tmp`):
/// the library only ever creates its own partial file there (`O_EXCL`), reopens one it made
/// (`O_NOFOLLOW`, a regular file of this user's with one link) and renames it to the destination.
///
/// Not `Sendable` by itself: a ``DownloadOperation`` keeps it behind its lock.
struct DownloadFile {
    /// The partial file.
    let url: URL
    /// Its open descriptor, write-only.
    private(set) var descriptor: Int32

    /// Creates a new, empty partial file next to `destination` (``PartialFileName``), with
    /// `O_EXCL`: never a file or link that is already there.
    static func create(besides destination: URL) throws(RequestError) -> DownloadFile {
        let url = destination.deletingLastPathComponent().appendingPathComponent(PartialFileName(of: destination).make())
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            throw RequestError.fileIO(code, "cannot create the partial file \(url.path.debugDescription)")
        }
        return DownloadFile(url: url, descriptor: descriptor)
    }

    /// Opens the existing partial file `url` (the caller has checked that it is named as a partial
    /// file of its destination) and keeps its first `length` bytes; `nil` when it is missing or
    /// shorter than that.
    ///
    /// Opened with `O_NOFOLLOW` and `O_NONBLOCK` (a FIFO would block an open for writing), and
    /// kept only when it is a regular file of this process's user with one link: a symbolic link,
    /// a device, another user's file or a hard link to some other file of this user's is refused,
    /// never truncated or written.
    ///
    /// - Throws: ``RequestError/Code/fileIO`` when something other than such a file has its name.
    static func reopen(_ url: URL, keeping length: Int64) throws(RequestError) -> DownloadFile? {
        let descriptor = open(url.path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw RequestError.fileIO(code, "cannot reopen the partial file \(url.path.debugDescription)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw RequestError.fileIO(code, "cannot reopen the partial file \(url.path.debugDescription)")
        }
        if let problem = problem(status, owner: geteuid()) {
            close(descriptor)
            throw RequestError(.fileIO, "the partial file \(url.path.debugDescription) \(problem): refused")
        }
        guard Int64(status.st_size) >= length, ftruncate(descriptor, off_t(length)) == 0,
              lseek(descriptor, off_t(length), SEEK_SET) == off_t(length)
        else {
            close(descriptor)
            return nil
        }
        return DownloadFile(url: url, descriptor: descriptor)
    }

    /// Why a file with `status` is not a partial file to continue, or `nil`: a pure judgement of
    /// `fstat`'s answer.
    static func problem(_ status: stat, owner: uid_t) -> String? {
        guard status.st_mode & S_IFMT == S_IFREG else { return "is not a regular file" }
        guard status.st_uid == owner else { return "belongs to user \(status.st_uid), not to this process's user \(owner)" }
        guard status.st_nlink == 1 else { return "has \(status.st_nlink) links: it is also another file" }
        return nil
    }

    /// Feeds the file's first `length` bytes to `hasher` (read through this descriptor, so they
    /// are the bytes of the file that was checked).
    func hash(first length: Int64, into hasher: SHA256Hasher) throws(RequestError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while offset < length {
            let wanted = Int(min(length - offset, Int64(buffer.count)))
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let code = count < 0 ? errno : EIO
                throw RequestError.fileIO(code, "reading the partial file \(url.path.debugDescription) failed")
            }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
            offset += Int64(count)
        }
    }

    /// Empties the file, to start again from byte 0.
    func truncate() throws(RequestError) {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            let code = errno
            throw RequestError.fileIO(code, "cannot empty the partial file \(url.path.debugDescription)")
        }
    }

    /// Writes all of `bytes` at the current position.
    func write(_ bytes: UnsafeRawBufferPointer) throws(RequestError) {
        if let code = writeAll(bytes, to: descriptor) {
            throw RequestError.fileIO(code, "writing the partial file \(url.path.debugDescription) failed")
        }
    }

    /// Flushes the bytes to disk, closes the file and moves it to `destination` atomically —
    /// replacing what is there, or failing with ``RequestError/Code/destinationExists`` when
    /// `replacing` is `false` — then flushes the directory entry.
    mutating func commit(to destination: URL, replacing: Bool) throws(RequestError) {
        guard fsync(descriptor) == 0 else {
            let code = errno
            throw RequestError.fileIO(code, "flushing the partial file \(url.path.debugDescription) failed")
        }
        closeDescriptor()
        if replacing {
            guard rename(url.path, destination.path) == 0 else {
                let code = errno
                throw RequestError.fileIO(code, "cannot move the download to \(destination.path.debugDescription)")
            }
        } else {
            // link(2) fails with EEXIST rather than replace: an atomic "move unless it exists".
            guard link(url.path, destination.path) == 0 else {
                if errno == EEXIST {
                    throw RequestError(.destinationExists, "\(destination.path.debugDescription) appeared during the download")
                }
                let code = errno
                throw RequestError.fileIO(code, "cannot move the download to \(destination.path.debugDescription)")
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
            throw RequestError.fileIO(code, "flushing the partial file \(url.path.debugDescription) failed")
        }
    }

    /// Closes and deletes the file.
    mutating func discard() {
        closeDescriptor()
        unlink(url.path)
    }
}
