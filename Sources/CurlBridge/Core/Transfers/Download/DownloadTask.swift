import Dispatch

/// A download started by a ``CallbackClient``: cancel it, with or without resume data.
public final class DownloadTask: Sendable {
    let link = CancellationLink()
    /// Where the download's handlers run.
    private let queue: DispatchQueue
    private let state = PosixLock(State())

    private struct State {
        var resumeDataHandlers: [@Sendable (ResumeData?) -> Void] = []
        var isDelivered = false
    }

    /// Whether ``cancel(producingResumeData:)`` was called: the partial file is then kept for the
    /// resume data, whatever the download's options say.
    var asksForResumeData: Bool {
        state.withLock { !$0.resumeDataHandlers.isEmpty }
    }

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Cancels the download. Its completion handler still runs exactly once: with
    /// ``RequestError/Code/cancelled`` (carrying resume data when it can be resumed), or with the
    /// outcome if it had already finished.
    public func cancel() {
        link.cancel()
    }

    /// Cancels the download and passes its resume data — `nil` when it cannot be resumed or had
    /// already finished — to `handler`, on the download's queue, just before its completion
    /// handler (or at once, when that has already run). NSURLSession's `cancel(byProducingResumeData:)`.
    public func cancel(producingResumeData handler: @escaping @Sendable (ResumeData?) -> Void) {
        let isDelivered = state.withLock { state in
            if !state.isDelivered { state.resumeDataHandlers.append(handler) }
            return state.isDelivered
        }
        if isDelivered {
            queue.async { handler(nil) }
        } else {
            link.cancel()
        }
    }

    /// Runs the resume-data handlers given so far, then `completion` (on the download's queue).
    func deliver(
        _ result: Result<DownloadResponse, RequestError>,
        to completion: @Sendable (Result<DownloadResponse, RequestError>) -> Void
    ) {
        let handlers = state.withLock { state in
            state.isDelivered = true
            defer { state.resumeDataHandlers = [] }
            return state.resumeDataHandlers
        }
        let resumeData: ResumeData? = if case .failure(let error) = result { error.resumeData } else { nil }
        for handler in handlers { handler(resumeData) }
        completion(result)
    }
}
