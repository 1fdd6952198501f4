import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BlockingClient {
    /// Downloads `request`'s body into a file at `destination`, waiting until it is there —
    /// NSURLSession's `downloadTask`, on a worker thread.
    ///
    /// The body goes to a partial file in the destination's directory as it arrives; on success it
    /// is verified, flushed (`fsync`) and renamed over the destination atomically. A failed or
    /// cancelled download never touches an existing destination, and its error carries
    /// ``RequestError/resumeData`` when it can be resumed.
    ///
    /// - Parameters:
    ///   - request: The request, usually a `GET`.
    ///   - destination: A `file:` URL.
    ///   - resumeData: Resume data from an earlier attempt: continues its partial file.
    ///   - options: Replacing, directories, size limit, digest, acceptable statuses.
    ///   - cancellation: Cancels the download from another thread.
    ///   - progress: Called on a serial queue of its own; the final report before this returns.
    /// - Throws: ``RequestError``.
    @available(*, noasync, message: "blocking calls starve Swift concurrency; use AsyncClient")
    public func download(
        _ request: Request, to destination: URL, resumingFrom resumeData: ResumeData? = nil,
        options: DownloadOptions = DownloadOptions(), cancellation: TransferCanceller? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws(RequestError) -> DownloadResponse {
        try checkThread(request)
        let operation = try DownloadOperation.prepare(request, to: destination, options: options, resuming: resumeData).get()
        let delivery = progress.map { ProgressDelivery($0) }
        defer { delivery?.queue.sync {} }
        let outcome = wait(for: operation.request, cancellation: cancellation) { onComplete in
            operation.events(progress: delivery?.handler, onComplete: onComplete)
        }
        return try operation.finish(outcome).get()
    }

    /// Sends `request` with the file at `file` as its body, streamed from disk —
    /// NSURLSession's `uploadTask(with:fromFile:)`.
    ///
    /// - Parameters:
    ///   - request: The request, usually a `POST` or `PUT`; its body is replaced.
    ///   - file: The file to send.
    ///   - contentType: `application/octet-stream` by default.
    ///   - cancellation: Cancels the upload from another thread.
    ///   - progress: Called on a serial queue of its own; the final report before this returns.
    /// - Throws: ``RequestError``; ``RequestError/Code/fileIO`` when the file cannot be read.
    @available(*, noasync, message: "blocking calls starve Swift concurrency; use AsyncClient")
    public func upload(
        _ request: Request, fromFile file: URL, contentType: String? = "application/octet-stream",
        cancellation: TransferCanceller? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws(RequestError) -> Response {
        try send(request.body(fileAt: file, contentType: contentType), cancellation: cancellation, progress: progress)
    }

    /// Sends `request` and returns as soon as the response head has arrived, with a reader that
    /// returns the body chunk by chunk as it arrives.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - bufferLimits: How much of the body may wait unread before the transfer pauses.
    ///   - progress: Called on a serial queue of its own.
    /// - Throws: ``RequestError`` when the request fails before its head arrived.
    @available(*, noasync, message: "blocking calls starve Swift concurrency; use AsyncClient")
    public func stream(
        _ request: Request, bufferLimits: BufferLimits = BufferLimits(),
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws(RequestError) -> BlockingStreamingResponse {
        try checkThread(request)
        let buffer = ResponseBodyBuffer(limits: bufferLimits)
        let arrival = DispatchSemaphore(value: 0)
        buffer.setArrivalHandler { arrival.signal() }
        transport.startDriving(
            request, events: buffer.events(progress: progress.map { ProgressDelivery($0).handler }),
            onStart: { buffer.attach($0) }, until: { buffer.hasItem })
        let head = try ResponseBodyBuffer.head(from: buffer.nextItem(waitingOn: arrival))
        return BlockingStreamingResponse(head: head, buffer: buffer, arrival: arrival, client: self)
    }
}
