#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A directory that only this process's user can change: where state is kept that must not be
/// turned by anyone else — a download queue's journal, a disk cache's entries, a program's own
/// saved ``ResumeData`` (which holds a URL's query).
///
/// Opening creates it `0700` when it is missing. An existing one is used only when it is a real
/// directory (not a symbolic link), owned by the effective user and not writable by its group or
/// others: checked with `lstat`, then with `fstat` on the opened descriptor, so that the directory
/// checked is the directory used. Every file inside is reached relative to that descriptor with
/// `O_NOFOLLOW`, so a symbolic link inside is never followed, and read only when it is a regular
/// file; a new file is made with `O_EXCL`, mode `0600`.
///
/// Names are single path components; anything else (`a/b`, `..`, an empty name) is refused, never
/// resolved.
public final class PrivateDirectory: Sendable {
    /// Where the directory is.
    public let url: URL
    /// Its descriptor, open for as long as this value lives.
    private let descriptor: Int32

    /// Opens the directory at `url` (creating it and any missing parent), or says why it cannot
    /// be trusted.
    ///
    /// - Parameters:
    ///   - url: The directory.
    ///   - role: What the directory is for, as error messages name it ("cache directory").
    /// - Throws: ``RequestError/Code/fileIO`` when it cannot be created or opened, or is a symbolic
    ///   link, not a directory, another user's, or writable by group or others.
    public init(opening url: URL, role: String) throws(RequestError) {
        let path = url.standardizedFileURL.path
        self.url = URL(fileURLWithPath: path, isDirectory: true)
        try Self.create(path, role: role)
        var status = stat()
        guard lstat(path, &status) == 0 else { throw RequestError.fileIO(errno, "cannot read the \(role) \(path)") }
        if let problem = Self.problem(status, expectedOwner: geteuid()) {
            throw RequestError(.fileIO, "the \(role) \(path) \(problem)")
        }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw RequestError.fileIO(errno, "cannot open the \(role) \(path)") }
        var opened = stat()
        guard fstat(descriptor, &opened) == 0, opened.st_dev == status.st_dev, opened.st_ino == status.st_ino,
              Self.problem(opened, expectedOwner: geteuid()) == nil
        else {
            close(descriptor)
            throw RequestError(.fileIO, "the \(role) \(path) changed while it was opened")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Why a directory with `status` cannot hold private state, or `nil` when it can: a pure
    /// judgement of `lstat`'s answer.
    static func problem(_ status: stat, expectedOwner: uid_t) -> String? {
        let type = status.st_mode & S_IFMT
        if type == S_IFLNK { return "is a symbolic link" }
        guard type == S_IFDIR else { return "is not a directory" }
        guard status.st_uid == expectedOwner else { return "belongs to user \(status.st_uid), not to this process's user \(expectedOwner)" }
        let mode = status.st_mode & 0o7777
        guard mode & 0o022 == 0 else {
            return "is writable by its group or others (mode \(String(mode, radix: 8))): make it 0700"
        }
        return nil
    }

    /// Makes `path` `0700` unless it exists, with its missing parents as `mkdir -p` makes them.
    private static func create(_ path: String, role: String) throws(RequestError) {
        var status = stat()
        if lstat(path, &status) == 0 { return }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw RequestError(.fileIO, "cannot create the \(role) \(path): \(error.fileErrorText)")
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw RequestError.fileIO(errno, "cannot create the \(role) \(path)") }
    }

    // MARK: Files inside

    /// Whether `name` is one path component that names a file inside: not empty, `.`, `..`, and
    /// without `/` or NUL.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(0)
    }

    /// Opens `name` with `flags` (plus `O_NOFOLLOW` and `O_CLOEXEC`), creating it `0600` when
    /// `flags` say so; returns the descriptor or the `errno`. A name that is not plain is `EINVAL`.
    public func openFile(_ name: String, _ flags: Int32) -> Result<Int32, POSIXError> {
        guard Self.isPlainName(name) else { return .failure(POSIXError(.EINVAL)) }
        let file = openat(descriptor, name, flags | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)) }
        return .success(file)
    }

    /// The bytes of the regular file `name`, at most `limit` of them from its start; `nil` when it
    /// is missing, not a regular file (a link, a directory, a FIFO), or cannot be read.
    func read(_ name: String, limit: Int = .max) -> Data? {
        guard case .success(let data?) = contents(of: name, limit: limit) else { return nil }
        return data
    }

    /// The bytes of the regular file `name`, at most `limit` of them from its start: `nil` when
    /// nothing has that name, the `errno` when it cannot be read or is not a regular file (`ELOOP`
    /// for a symbolic link, `EISDIR` for a directory, `EINVAL` for anything else) — for a caller
    /// that must tell a missing file from one it may not trust.
    public func contents(of name: String, limit: Int = .max) -> Result<Data?, POSIXError> {
        let file: Int32
        switch openFile(name, O_RDONLY | O_NONBLOCK) {
        case .success(let opened): file = opened
        case .failure(let error): return error.code == .ENOENT ? .success(nil) : .failure(error)
        }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            return .failure(POSIXError(status.st_mode & S_IFMT == S_IFDIR ? .EISDIR : .EINVAL))
        }
        let size = min(Int(status.st_size), limit)
        var data = Data(count: size)
        let failure = data.withUnsafeMutableBytes { buffer -> POSIXErrorCode? in
            var offset = 0
            while offset < size {
                let count = Glibc.read(file, buffer.baseAddress! + offset, size - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return count < 0 ? POSIXErrorCode(rawValue: errno) ?? .EIO : .EIO }
                offset += count
            }
            return nil
        }
        return failure.map { .failure(POSIXError($0)) } ?? .success(data)
    }

    /// The size of the regular file `name`, or `nil` when it is not one.
    func size(of name: String) -> Int? {
        guard Self.isPlainName(name) else { return nil }
        var status = stat()
        guard fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// The modification time of the regular file `name`, or `nil` when it is not one.
    func modificationDate(of name: String) -> Date? {
        guard Self.isPlainName(name) else { return nil }
        var status = stat()
        guard fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec) + TimeInterval(status.st_mtim.tv_nsec) / 1e9)
    }

    /// Creates a new file named `prefix` and a random token (`O_EXCL`, `0600`), open for writing;
    /// returns its name and descriptor, or the `errno`.
    public func createTemporary(prefix: String) -> Result<(name: String, descriptor: Int32), POSIXError> {
        var random = SystemRandomNumberGenerator()
        let name = prefix + String(random.next(), radix: 36)
        return openFile(name, O_WRONLY | O_CREAT | O_EXCL).map { (name, $0) }
    }

    /// Renames `source` over `target` (both inside); returns the `errno` on failure.
    public func rename(_ source: String, to target: String) -> POSIXErrorCode? {
        guard Self.isPlainName(source), Self.isPlainName(target) else { return .EINVAL }
        return renameat(descriptor, source, descriptor, target) == 0 ? nil : POSIXErrorCode(rawValue: errno) ?? .EIO
    }

    /// Links `source` as `target` (both inside) unless `target` exists: an atomic "create with
    /// these contents"; returns the `errno` on failure (`EEXIST` when `target` exists).
    func link(_ source: String, to target: String) -> POSIXErrorCode? {
        guard Self.isPlainName(source), Self.isPlainName(target) else { return .EINVAL }
        return linkat(descriptor, source, descriptor, target, 0) == 0 ? nil : POSIXErrorCode(rawValue: errno) ?? .EIO
    }

    /// Deletes the file `name` (a link itself, never what it points to).
    public func remove(_ name: String) {
        guard Self.isPlainName(name) else { return }
        unlinkat(descriptor, name, 0)
    }

    /// The names in the directory, `.` and `..` left out.
    public var names: [String] {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Flushes the directory's entries (after a rename or a new file) to the disk.
    public func sync() {
        fsync(descriptor)
    }
}
