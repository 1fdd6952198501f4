#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every ``interval`` bytes, a download flushes its partial file (`fsync`) and hands ``handler``
/// the ``ResumeData`` of what is now safely on disk — once more, for the whole file, just before
/// it is moved into place. With checkpoints, the resume data a failed download carries names only
/// flushed bytes too. What a ``DownloadQueue`` journals; a program that keeps its own record of
/// its downloads records the same, and after a crash resumes each from its last checkpoint.
///
/// Give one to ``CallbackClient/download(_:to:resumingFrom:options:queue:checkpoint:progress:completion:)``.
/// No checkpoint is made for a response that cannot be resumed (no strong validator, or a
/// content-encoded body). The handler is called on the transport's loop as the bytes arrive, and once
/// more for a complete download, before its file is moved into place, from the thread that
/// finishes it; the calls never overlap. It must return quickly and must not wait for a
/// transfer.
public struct DownloadCheckpoint: Sendable {
    /// Bytes between two checkpoints, at least 1.
    public let interval: Int64
    /// Receives the resume data of each checkpoint, in order.
    public let handler: @Sendable (ResumeData) -> Void

    /// A checkpoint every `interval` bytes (at least 1) reported to `handler`.
    public init(every interval: Int64, _ handler: @escaping @Sendable (ResumeData) -> Void) {
        self.interval = max(1, interval)
        self.handler = handler
    }
}

extension RequestError {
    /// Whether this is a write that failed because the disk, or the process's file size limit,
    /// is full (`ENOSPC`, `EFBIG`, `EDQUOT`): a download that fails so keeps its bytes, and can be
    /// resumed once there is room.
    public var isDiskFull: Bool {
        guard code == .fileIO, let posix = underlying as? POSIXError else { return false }
        return [.ENOSPC, .EFBIG, .EDQUOT].contains(posix.code)
    }
}
