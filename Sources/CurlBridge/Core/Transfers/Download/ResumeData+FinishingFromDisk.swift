#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension ResumeData {
    /// Whether the partial file holds the whole download: the server announced its length, and
    /// that many bytes were on disk. Resume data saved at a download's last ``DownloadCheckpoint``
    /// is complete; such a download is finished with ``finishFromDisk(expectedSHA256:computesSHA256:)``,
    /// not resumed.
    public var isComplete: Bool { expectedLength == bytesOnDisk }

    /// Finishes, with no request, a download whose partial file holds all of it (``isComplete``):
    /// what a program does after a crash for a download whose last checkpoint came just before
    /// its file was moved into place. The partial file is cut to ``expectedLength`` bytes, its
    /// SHA-256 checked, and it is moved over ``destination``. When the partial file is gone and
    /// the destination has the expected length, the crash came after the move: the destination is
    /// checked instead, and left in place.
    ///
    /// The resume data is checked first (``check(resumingTo:)``), and the partial file must be a
    /// regular file of this user's with one link; a symbolic link is never followed.
    ///
    /// - Parameters:
    ///   - expectedSHA256: The SHA-256 the file must have, in lowercase hex; `nil` by default.
    ///   - computesSHA256: Whether to compute the file's SHA-256 when none is expected; `false` by
    ///     default.
    /// - Returns: The file's SHA-256 in lowercase hex when one was computed, else `nil` (also when
    ///   the process has no libcrypto to compute it with).
    /// - Throws: ``RequestError/Code/integrityMismatch`` when the file's digest is not
    ///   `expectedSHA256` (a partial file is deleted; a destination already in place is left);
    ///   ``RequestError/Code/fileIO`` when the bytes are not all on disk — resume the download
    ///   instead — or the file cannot be trusted, read or moved, or `expectedSHA256` is given and
    ///   no digest can be computed (no libcrypto): then the partial file is kept.
    public func finishFromDisk(expectedSHA256: String? = nil, computesSHA256: Bool = false) throws(RequestError) -> String? {
        guard let length = expectedLength, isComplete else {
            let announced = expectedLength.map(String.init) ?? "an unknown length"
            throw RequestError(.fileIO, "the partial file holds \(bytesOnDisk) bytes of \(announced): resume the download", url: url)
        }
        try check(resumingTo: destination)
        let hashes = computesSHA256 || expectedSHA256 != nil
        guard let partialSize = Self.ownRegularFileSize(partialFileURL.path) else {
            guard Self.ownRegularFileSize(destination.path) == length else {
                throw RequestError(.fileIO, "neither the partial file nor \(destination.path.debugDescription) holds the download", url: url)
            }
            let digest = hashes ? Self.sha256(of: destination) : nil
            try checkDigest(digest, expected: expectedSHA256)
            return digest
        }
        guard partialSize >= length, var file = try DownloadFile.reopen(partialFileURL, keeping: length) else {
            throw RequestError(.fileIO, "the partial file \(partialFileURL.path.debugDescription) is shorter than its checkpoint", url: url)
        }
        var digest: String?
        if hashes, let hasher = SHA256Hasher() {
            do throws(RequestError) {
                try file.hash(first: length, into: hasher)
            } catch {
                file.closeDescriptor()
                throw error
            }
            digest = hasher.finalize()
        }
        do throws(RequestError) {
            try checkDigest(digest, expected: expectedSHA256)
        } catch {
            // Only bytes known to be wrong are deleted; unverified ones are kept for another try.
            if error.code == .integrityMismatch { file.discard() } else { file.closeDescriptor() }
            throw error
        }
        try file.commit(to: destination, replacing: true)
        return digest
    }

    /// Throws ``RequestError/Code/integrityMismatch`` when `digest` is not `expected`, and
    /// ``RequestError/Code/fileIO`` when a digest is expected but none could be computed.
    private func checkDigest(_ digest: String?, expected: String?) throws(RequestError) {
        guard let expected else { return }
        guard let digest else {
            throw RequestError(.fileIO, "the download's SHA-256 cannot be computed (no libcrypto, or its file cannot be read)", url: url)
        }
        guard digest != expected else { return }
        throw RequestError(.integrityMismatch, "the download's SHA-256 is \(digest), expected \(expected)", url: url)
    }

    /// The size of the regular file at `path` when it is this user's (`lstat`: a link is not
    /// followed), else `nil`.
    private static func ownRegularFileSize(_ path: String) -> Int64? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else { return nil }
        return Int64(status.st_size)
    }

    /// The SHA-256 of the file at `url` (opened without following a link), in lowercase hex; `nil`
    /// when it cannot be read or the process has no libcrypto.
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
