import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension DownloadQueue {
    /// What opening found of one unfinished download.
    enum RejoinOutcome {
        /// It continues from its last checkpoint.
        case unfinished
        /// A crash stopped it while its complete file was moved into place: the queue finished the
        /// move; the file's digest, when one is computed.
        case finished(sha256: String?)
        /// Its complete file does not have the digest it must have.
        case failed(RequestError)
    }

    /// Tidies what a crash left of one download, touching only its own files: partial files of its
    /// destination that no checkpoint names (regular files of this user's, beside it), and the one
    /// its last checkpoint names, moved into place when that checkpoint covered the whole file and
    /// its digest is the expected one. Returns the bytes past the checkpoint (fetched again) — all
    /// of those of the partial files deleted — and what became of the download.
    static func rejoin(_ entry: DownloadQueueState.Entry, computesSHA256: Bool) -> (discarded: Int64, outcome: RejoinOutcome) {
        let destination = entry.download.destination
        let directory = destination.deletingLastPathComponent()
        let kept = entry.resume.map { Array($0.partialFileURL.lastPathComponent.utf8) }
        let partialFiles = PartialFileName(of: destination)
        var discarded: Int64 = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        where Array(name.utf8) != kept && partialFiles.recognises(name) {
            let orphan = directory.appendingPathComponent(name).path
            guard let size = ownRegularFileSize(orphan) else { continue }
            discarded = discarded.addingSaturated(size)
            unlink(orphan)
        }
        guard let resume = entry.resume else { return (discarded, .unfinished) }
        let partial = resume.partialFileURL
        let partialSize = ownRegularFileSize(partial.path)
        guard let expected = resume.expectedLength, resume.bytesOnDisk == expected else {
            return (discarded.addingSaturated(max(0, (partialSize ?? 0) - resume.bytesOnDisk)), .unfinished)
        }
        let hashes = computesSHA256 || entry.download.expectedSHA256 != nil
        guard let partialSize else {
            // Moved into place before the crash: the file at the destination is the download's.
            guard ownRegularFileSize(destination.path) == expected else { return (discarded, .unfinished) }
            let digest = hashes ? sha256(of: destination) : nil
            if let problem = mismatch(digest, entry) { return (discarded, .failed(problem)) }
            return (discarded, .finished(sha256: digest))
        }
        guard partialSize >= expected, var file = try? DownloadFile.reopen(partial, keeping: expected) else {
            return (discarded.addingSaturated(max(0, partialSize - resume.bytesOnDisk)), .unfinished)
        }
        discarded = discarded.addingSaturated(partialSize - expected)
        var digest: String?
        if hashes, let hasher = SHA256Hasher() {
            guard (try? file.hash(first: expected, into: hasher)) != nil else {
                file.closeDescriptor()
                return (discarded, .unfinished)
            }
            digest = hasher.finalize()
        }
        if let problem = mismatch(digest, entry) {
            file.discard()
            return (discarded, .failed(problem))
        }
        guard (try? file.commit(to: destination, replacing: true)) != nil else { return (discarded, .unfinished) }
        return (discarded, .finished(sha256: digest))
    }

    /// The error of a file whose `digest` is not the one `entry` must have, or `nil`.
    private static func mismatch(_ digest: String?, _ entry: DownloadQueueState.Entry) -> RequestError? {
        guard let expected = entry.download.expectedSHA256, digest != expected else { return nil }
        return RequestError(
            .integrityMismatch, "the download's SHA-256 is \(digest ?? "unknown"), expected \(expected)", url: entry.download.url)
    }

    /// The size of the regular file at `path` when it is this user's (`lstat`: a link is not
    /// followed), else `nil`.
    private static func ownRegularFileSize(_ path: String) -> Int64? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else { return nil }
        return Int64(status.st_size)
    }

    /// The SHA-256 of the file at `url`, in lowercase hex as a download reports it; `nil` when it
    /// cannot be read or the process has no libcrypto.
    private static func sha256(of url: URL) -> String? {
        guard let hasher = SHA256Hasher() else { return nil }
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return hasher.finalize() }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
    }
}
