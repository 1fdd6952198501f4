#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Reading the queue, and pausing, resuming and cancelling its downloads.
extension DownloadQueue {
    /// Every download, in the order enqueued.
    public var downloads: [QueuedDownload] {
        state.withLock { shared in shared.machine.ids.compactMap { shared.machine.entries[$0]?.download } }
    }

    /// The download `id`, if the queue has it.
    public func download(_ id: UInt64) -> QueuedDownload? {
        state.withLock { $0.machine.entries[id]?.download }
    }

    /// The whole queue's progress.
    public var progress: DownloadQueueProgress {
        state.withLock { $0.machine.progress }
    }

    /// Pauses download `id`: a running transfer stops with its bytes kept; it waits for ``resume(_:)``,
    /// in this process or a later one.
    public func pause(_ id: UInt64) { act { $0.pause(id) } }

    /// Resumes a paused download.
    public func resume(_ id: UInt64) { act { $0.resume(id) } }

    /// Cancels download `id` and deletes its partial file.
    public func cancel(_ id: UInt64) { act { $0.cancel(id) } }

    /// Pauses every download.
    public func pauseAll() { act { machine in machine.ids.flatMap { machine.pause($0) } } }

    /// Resumes every paused download (after a full disk, once there is room).
    public func resumeAll() { act { machine in machine.ids.flatMap { machine.resume($0) } } }

    /// Cancels every download that is not finished.
    public func cancelAll() { act { machine in machine.ids.flatMap { machine.cancel($0) } } }
}
