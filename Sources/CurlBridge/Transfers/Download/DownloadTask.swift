import Synchronization

/// A download started by a ``CallbackClient``: cancel it, with or without resume data.
public final class DownloadTask: Sendable {
    let link = CancellationLink()
    private let resumeDataHandler = Mutex<(@Sendable (ResumeData?) -> Void)?>(nil)

    init() {}

    /// Cancels the download. Its completion handler still runs exactly once: with
    /// ``RequestError/Code/cancelled`` (carrying resume data when it can be resumed), or with the
    /// outcome if it had already finished.
    public func cancel() {
        link.cancel()
    }

    /// Cancels the download and passes its resume data — `nil` when it cannot be resumed or had
    /// already finished — to `handler`, on the download's queue just before its completion handler.
    /// NSURLSession's `cancel(byProducingResumeData:)`.
    public func cancel(producingResumeData handler: @escaping @Sendable (ResumeData?) -> Void) {
        resumeDataHandler.withLock { $0 = handler }
        link.cancel()
    }

    /// Runs the resume-data handler, if one was given, then `completion`.
    func deliver(
        _ result: Result<DownloadResponse, RequestError>,
        to completion: @Sendable (Result<DownloadResponse, RequestError>) -> Void
    ) {
        let handler = resumeDataHandler.withLock { handler in
            defer { handler = nil }
            return handler
        }
        if let handler {
            if case .failure(let error) = result { handler(error.resumeData) } else { handler(nil) }
        }
        completion(result)
    }
}
