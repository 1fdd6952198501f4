#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
            discarded = ByteCount.sum(discarded, size)
            unlink(orphan)
        }
        guard let resume = entry.resume else { return (discarded, .unfinished) }
        let partialSize = ownRegularFileSize(resume.partialFileURL.path) ?? 0
        guard resume.isComplete else { return (ByteCount.sum(discarded, max(0, partialSize - resume.bytesOnDisk)), .unfinished) }
        // Complete at its last checkpoint: the move into place is finished here, not fetched again.
        discarded = ByteCount.sum(discarded, max(0, partialSize - resume.bytesOnDisk))
        do throws(RequestError) {
            let digest = try resume.finishFromDisk(expectedSHA256: entry.download.expectedSHA256, computesSHA256: computesSHA256)
            return (discarded, .finished(sha256: digest))
        } catch where error.code == .integrityMismatch {
            return (discarded, .failed(error))
        } catch {
            return (discarded, .unfinished)
        }
    }

    /// The size of the regular file at `path` when it is this user's (`lstat`: a link is not
    /// followed), else `nil`.
    private static func ownRegularFileSize(_ path: String) -> Int64? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else { return nil }
        return Int64(status.st_size)
    }
}
