extension DownloadQueueState {
    /// Where one download is, as the machine sees it: its public ``QueuedDownload/State`` with
    /// what that state does not show told apart — a waiting download that waits out a backoff,
    /// and a running one whose stop for a pause or a cancel was asked.
    enum Stage: String, CaseIterable, CustomStringConvertible {
        /// Waiting for a free slot.
        case waiting
        /// Waiting out the ``RetryPolicy``'s backoff: it takes no slot until its timer ends.
        case backingOff
        /// Transferring.
        case running
        /// Transferring, stopped for a pause: its end pauses it.
        case pausing
        /// Transferring, stopped for a cancel: its end cancels it.
        case cancelling
        /// Paused.
        case paused
        /// Finished.
        case finished
        /// Failed for good.
        case failed
        /// Cancelled.
        case cancelled

        var description: String { rawValue }
    }

    /// The stage of download `id`, if the machine has it.
    func stage(of id: UInt64) -> Stage? {
        guard let entry = entries[id] else { return nil }
        switch entry.download.state {
        case .waiting: return entry.retryTimer == nil ? .waiting : .backingOff
        case .running: return entry.cancelAsked ? .cancelling : entry.pauseAsked ? .pausing : .running
        case .paused: return .paused
        case .finished: return .finished
        case .failed: return .failed
        case .cancelled: return .cancelled
        }
    }
}
