import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AsyncClient {
    /// Downloads `request`'s body into a file at `destination` — NSURLSession's `downloadTask`.
    ///
    /// The body goes to a partial file in the destination's directory as it arrives; on success it
    /// is verified, flushed (`fsync`) and renamed over the destination atomically, off the
    /// cooperative thread pool. A failed or cancelled download never touches an existing
    /// destination, and its error carries ``RequestError/resumeData`` when it can be resumed:
    /// cancelling the task is `cancel(byProducingResumeData:)`.
    ///
    /// ```swift
    /// do {
    ///     let file = try await client.download(.get("big.iso"), to: destination)
    /// } catch {
    ///     saved = error.resumeData   // later: download(…, resumingFrom: saved)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request, usually a `GET`.
    ///   - destination: A `file:` URL.
    ///   - resumeData: Resume data from an earlier attempt: continues its partial file.
    ///   - options: Replacing, directories, size limit, digest, acceptable statuses.
    ///   - progress: Called on a serial queue of its own; the final report before this returns.
    /// - Throws: ``RequestError``.
    public func download(
        _ request: Request, to destination: URL, resumingFrom resumeData: ResumeData? = nil,
        options: DownloadOptions = DownloadOptions(), progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(RequestError) -> DownloadResponse {
        // Preparing touches the disk (and hashes a partial file when resuming with a digest): off
        // the cooperative pool. The prepared operation comes back under a lock rather than as the
        // continuation's value: both order its making before its use, but ThreadSanitizer sees
        // only the lock (the Swift runtime's continuations are not instrumented on Linux).
        let prepared = PosixLock<Result<DownloadOperation, RequestError>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                let operation = DownloadOperation.prepare(request, to: destination, options: options, resuming: resumeData)
                prepared.withLock { $0 = operation }
                continuation.resume()
            }
        }
        let operation = try prepared.withLock { $0! }.get()
        let delivery = progress.map { ProgressDelivery($0) }
        let finishing = delivery?.queue ?? DispatchQueue.global()
        return try await perform(operation.request) { link in
            operation.events(progress: delivery?.handler) { outcome in
                finishing.async { link.resume(with: operation.finish(outcome)) }
            }
        }.get()
    }

    /// Sends `request` with the file at `file` as its body, streamed from disk —
    /// NSURLSession's `uploadTask(with:fromFile:)`.
    ///
    /// - Parameters:
    ///   - request: The request, usually a `POST` or `PUT`; its body is replaced.
    ///   - file: The file to send.
    ///   - contentType: `application/octet-stream` by default.
    ///   - progress: Called on a serial queue of its own; the final report before this returns.
    /// - Throws: ``RequestError``; ``RequestError/Code/fileIO`` when the file cannot be read.
    public func upload(
        _ request: Request, fromFile file: URL, contentType: String? = "application/octet-stream",
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(RequestError) -> Response {
        try await send(request.body(fileAt: file, contentType: contentType), progress: progress)
    }

    /// Sends `request` and returns as soon as the response head has arrived; the body follows as
    /// an `AsyncSequence` of chunks (NSURLSession's `didReceiveResponse` and `didReceiveData`).
    ///
    /// Backpressure: at most ``BufferLimits/highWatermark`` bytes wait unread; then the transfer
    /// pauses in curl until the reader catches up. Cancelling the task, or dropping the body
    /// before its end, cancels the transfer.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - bufferLimits: How much of the body may wait unread before the transfer pauses.
    ///   - progress: Called on a serial queue of its own.
    /// - Throws: ``RequestError`` when the request fails before its head arrived.
    public func stream(
        _ request: Request, bufferLimits: BufferLimits = BufferLimits(),
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(RequestError) -> StreamingResponse {
        let buffer = ResponseBodyBuffer(limits: bufferLimits)
        let body = ResponseBody(buffer: buffer)  // from here on, dropping the body cancels
        let events = buffer.events(progress: progress.map { ProgressDelivery($0).handler })
        if Task.isCancelled {
            transport.startCancelled(request, events: events)
        } else {
            buffer.attach(transport.start(request, events: events))
        }
        return StreamingResponse(head: try ResponseBodyBuffer.head(from: await buffer.nextItem()), body: body)
    }
}
