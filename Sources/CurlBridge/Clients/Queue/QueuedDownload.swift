#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One download of a ``DownloadQueue``, as the queue last saw it.
public struct QueuedDownload: Sendable, Identifiable {
    /// The identifier ``DownloadQueue/enqueue(_:to:expectedSHA256:)`` returned; it survives restarts.
    public let id: UInt64
    /// The URL it downloads, as the journal keeps it: without user info (credentials come from
    /// the transport's configuration), and without its query when the queue's
    /// ``DownloadQueue/Options/journalsQuery`` is `false`.
    public let url: String
    /// Where the file goes.
    public let destination: URL
    /// Where it stands.
    public var state: State
    /// Bytes safely on disk: flushed, and recorded in the journal.
    public var bytesOnDisk: Int64
    /// The file's full length, once the server announced it.
    public var expectedLength: Int64?
    /// The finished file's SHA-256.
    public var sha256: String?
    /// The SHA-256 the file must have, as given to ``DownloadQueue/enqueue(_:to:expectedSHA256:)``
    /// (lowercase); `nil` when none was.
    public var expectedSHA256: String? = nil
    /// Why it failed, or why the queue paused it.
    public var error: RequestError?

    /// Where a queued download stands.
    public enum State: String, Sendable, Hashable, Codable {
        /// Waiting for a free slot.
        case waiting
        /// Transferring.
        case running
        /// Paused by ``DownloadQueue/pause(_:)`` (or by a full disk): it waits for ``DownloadQueue/resume(_:)``.
        case paused
        /// Finished: the file is at its destination. Never fetched again.
        case finished
        /// Failed for good (an error status, a changed file that cannot restart, too many failures).
        case failed
        /// Cancelled: its partial file is gone.
        case cancelled

        /// Whether nothing more will happen to it.
        public var isFinal: Bool { self == .finished || self == .failed || self == .cancelled }
    }
}

/// What a ``DownloadQueue`` reports, in the order it happens: through ``DownloadQueue/events``,
/// ``DownloadQueue/onEvent(queue:_:)`` and the blocking waits.
public enum DownloadQueueEvent: Sendable {
    /// Bytes arrived (at most every ``TransferProgress/minimumInterval`` per download), counting
    /// those kept from earlier runs.
    case progress(id: UInt64, TransferProgress)
    /// A download's state changed.
    case changed(QueuedDownload)
    /// The disk (or the file size limit) is full: every download is paused, nothing is lost.
    /// Make room, then ``DownloadQueue/resumeAll()``.
    case diskFull(RequestError)
}

/// The whole queue's progress.
public struct DownloadQueueProgress: Sendable, Hashable {
    /// Downloads not cancelled.
    public var downloads: Int
    /// Of those, finished.
    public var finished: Int
    /// Bytes safely on disk, over every download not cancelled.
    public var bytesOnDisk: Int64
    /// Their total length, when every one of them announced it.
    public var expectedBytes: Int64?
}
