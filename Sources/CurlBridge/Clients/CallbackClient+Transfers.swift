import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CallbackClient {
    /// Downloads `request`'s body into a file at `destination` — NSURLSession's `downloadTask`.
    ///
    /// The body goes to a partial file in the destination's directory as it arrives; on success it
    /// is verified, flushed (`fsync`) and renamed over the destination atomically, off the
    /// transport's queue. A failed or cancelled download never touches an existing destination,
    /// and its error carries ``RequestError/resumeData`` when it can be resumed.
    ///
    /// - Parameters:
    ///   - request: The request, usually a `GET`.
    ///   - destination: A `file:` URL.
    ///   - resumeData: Resume data from an earlier attempt: continues its partial file.
    ///   - options: Replacing, directories, size limit, digest, acceptable statuses.
    ///   - queue: Where `progress` and `completion` run; the client's ``completionQueue`` when `nil`.
    ///   - progress: Called with progress, the final report before `completion`.
    ///   - completion: Receives the outcome, exactly once.
    /// - Returns: A task that can cancel the download, producing resume data.
    @discardableResult
    public func download(
        _ request: Request, to destination: URL, resumingFrom resumeData: ResumeData? = nil,
        options: DownloadOptions = DownloadOptions(), queue: DispatchQueue? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<DownloadResponse, RequestError>) -> Void
    ) -> DownloadTask {
        startDownload(
            request, to: destination, resumingFrom: resumeData, options: options, queue: queue, checkpoint: nil,
            progress: progress, completion: completion)
    }

    /// ``download(_:to:resumingFrom:options:queue:progress:completion:)`` with checkpoints: every
    /// `checkpoint.interval` bytes the partial file is flushed and its ``ResumeData`` handed to
    /// `checkpoint.handler` (see ``DownloadCheckpoint`` for the thread), so that a record kept
    /// beside the download names only bytes that survive a crash. What a ``DownloadQueue`` uses.
    ///
    /// - Parameters:
    ///   - request: The request, usually a `GET`.
    ///   - destination: A `file:` URL.
    ///   - resumeData: Resume data from an earlier attempt, or a checkpoint: continues its partial file.
    ///   - options: Replacing, directories, size limit, digest, acceptable statuses; set
    ///     ``DownloadOptions/keepsPartialFileForResume`` to keep the partial file of a failure.
    ///   - queue: Where `progress` and `completion` run; the client's ``completionQueue`` when `nil`.
    ///   - checkpoint: How often to flush, and who is told.
    ///   - progress: Called with progress, the final report before `completion`.
    ///   - completion: Receives the outcome, exactly once.
    /// - Returns: A task that can cancel the download, producing resume data.
    @discardableResult
    public func download(
        _ request: Request, to destination: URL, resumingFrom resumeData: ResumeData? = nil,
        options: DownloadOptions = DownloadOptions(), queue: DispatchQueue? = nil, checkpoint: DownloadCheckpoint,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<DownloadResponse, RequestError>) -> Void
    ) -> DownloadTask {
        startDownload(
            request, to: destination, resumingFrom: resumeData, options: options, queue: queue, checkpoint: checkpoint,
            progress: progress, completion: completion)
    }

    /// Starts a download, with checkpoints or without.
    private func startDownload(
        _ request: Request, to destination: URL, resumingFrom resumeData: ResumeData?, options: DownloadOptions,
        queue: DispatchQueue?, checkpoint: DownloadCheckpoint?, progress: (@Sendable (TransferProgress) -> Void)?,
        completion: @escaping @Sendable (Result<DownloadResponse, RequestError>) -> Void
    ) -> DownloadTask {
        let queue = queue ?? completionQueue
        let task = DownloadTask(queue: queue)
        // Preparing touches the disk (and hashes a partial file when resuming with a digest):
        // never on the caller's thread, which may be the main one.
        DispatchQueue.global().async { [transport] in
            let operation: DownloadOperation
            switch DownloadOperation.prepare(request, to: destination, options: options, resuming: resumeData, checkpoint: checkpoint) {
            case .success(let prepared):
                operation = prepared
            case .failure(let error):
                queue.async { task.deliver(.failure(error), to: completion) }
                return
            }
            let events = operation.events(progress: progress.map { ProgressDelivery($0, on: queue).handler }) { outcome in
                DispatchQueue.global().async {
                    let result = operation.finish(outcome, resumeDataAsked: task.asksForResumeData)
                    queue.async { task.deliver(result, to: completion) }
                }
            }
            task.link.attach(transport.start(operation.request, events: events))
        }
        return task
    }

    /// Sends `request` with the file at `file` as its body, streamed from disk —
    /// NSURLSession's `uploadTask(with:fromFile:)`.
    ///
    /// - Parameters:
    ///   - request: The request, usually a `POST` or `PUT`; its body is replaced.
    ///   - file: The file to send.
    ///   - contentType: `application/octet-stream` by default.
    ///   - queue: Where `progress` and `completion` run; the client's ``completionQueue`` when `nil`.
    ///   - progress: Called with progress, the final report before `completion`.
    ///   - completion: Receives the outcome, exactly once; ``RequestError/Code/fileIO`` when the
    ///     file cannot be read.
    /// - Returns: A task that can cancel the upload.
    @discardableResult
    public func upload(
        _ request: Request, fromFile file: URL, contentType: String? = "application/octet-stream",
        queue: DispatchQueue? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Response, RequestError>) -> Void
    ) -> CallbackTask {
        send(request.body(fileAt: file, contentType: contentType), queue: queue, progress: progress, completion: completion)
    }

    /// Sends `request` and reports its response as it arrives — NSURLSession's data delegate
    /// (`didReceiveResponse`, `didReceiveData`, `didCompleteWithError`), the play-while-downloading case.
    ///
    /// All three handlers run on `queue`, in order: `onResponse` once (unless the request fails
    /// first; `nil`, the default, when the head is of no interest), `onData` for each chunk, then `onComplete` exactly once (its response's body is
    /// empty: the body went through `onData`). At most ``BufferLimits/highWatermark`` bytes wait
    /// for `onData`; beyond that the transfer pauses until the queue catches up, and while the
    /// task is paused with ``StreamTask/pause()``.
    ///
    /// - Returns: A task that pauses, resumes and cancels delivery.
    @discardableResult
    public func stream(
        _ request: Request, bufferLimits: BufferLimits = BufferLimits(), queue: DispatchQueue? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        onResponse: (@Sendable (ResponseHead) -> Void)? = nil,
        onData: @escaping @Sendable (Data) -> Void,
        onComplete: @escaping @Sendable (Result<Response, RequestError>) -> Void
    ) -> StreamTask {
        let queue = queue ?? completionQueue
        let buffer = ResponseBodyBuffer(limits: bufferLimits)
        let task = StreamTask(
            buffer: buffer, queue: queue, handlers: .init(onResponse: onResponse, onData: onData, onComplete: onComplete))
        buffer.setArrivalHandler { task.deliverAvailable() }
        buffer.attach(transport.start(request, events: buffer.events(progress: progress.map { ProgressDelivery($0, on: queue).handler })))
        return task
    }
}
