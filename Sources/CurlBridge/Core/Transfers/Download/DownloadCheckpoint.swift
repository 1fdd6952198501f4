import Foundation

/// Every `interval` bytes, a download flushes its partial file (`fsync`) and hands `handler` the
/// ``ResumeData`` of what is now safely on disk — once more, for the whole file, just before it
/// is moved into place. What a ``DownloadQueue`` journals. Called on the transport's loop.
struct DownloadCheckpoint: Sendable {
    let interval: Int64
    let handler: @Sendable (ResumeData) -> Void
}

extension RequestError {
    /// Whether this is a write that failed because the disk, or the process's file size limit,
    /// is full (`ENOSPC`, `EFBIG`, `EDQUOT`).
    var isDiskFull: Bool {
        guard code == .fileIO, let posix = underlying as? POSIXError else { return false }
        return [.ENOSPC, .EFBIG, .EDQUOT].contains(posix.code)
    }
}
