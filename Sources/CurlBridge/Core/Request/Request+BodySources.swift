#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Request {
    /// This request with the contents of a file as its body, streamed from disk by curl's read
    /// callback (never loaded whole) with `Content-Length` — NSURLSession's `uploadTask(with:fromFile:)`.
    ///
    /// The file is checked when the request is sent: a missing, unreadable or non-regular file
    /// fails with ``RequestError/Code/fileIO`` before anything is sent. The body is rewindable.
    ///
    /// - Parameters:
    ///   - url: A `file:` URL.
    ///   - contentType: `application/octet-stream` by default.
    public func body(fileAt url: URL, contentType: String? = "application/octet-stream") -> Request {
        var copy = self
        copy.body = Body(content: .file(url), contentType: contentType)
        return copy
    }

    /// This request with a body made while it is sent, from an `AsyncSequence` of chunks.
    ///
    /// The sequence is iterated in a task of its own, at most 1 MiB ahead of what curl has sent.
    /// With a `length`, `Content-Length` is sent and a sequence that makes another number of
    /// bytes fails the request with ``RequestError/Code/bodySourceFailed``; without one, HTTP/1.1
    /// sends the body chunked. While the upload waits for the sequence it is not idle (as a
    /// paused download is not): bound a producer that may stall with a total timeout. A
    /// sequence that throws fails the request with
    /// ``RequestError/Code/bodySourceFailed`` and the error as ``RequestError/underlying``.
    ///
    /// The body is sent once: it cannot be rewound, so a request that needs it again (a retried
    /// connection) fails with ``RequestError/Code/bodyNotRewindable``, and sending
    /// the same request value twice fails the second time.
    ///
    /// - Parameters:
    ///   - chunks: The body's bytes, in order.
    ///   - length: The total number of bytes, if known.
    ///   - contentType: `application/octet-stream` by default.
    public func body<Chunks: AsyncSequence & Sendable>(
        streaming chunks: Chunks, length: Int64? = nil, contentType: String? = "application/octet-stream"
    ) -> Request where Chunks.Element == Data {
        let stream = BodyStream(length: length, producer: .sequence { stream in
            for try await chunk in chunks {
                try Task.checkCancellation()
                await stream.append(chunk)
            }
        })
        var copy = self
        copy.body = Body(content: .stream(stream), contentType: contentType)
        return copy
    }

    /// This request with a body made while it is sent, by a closure that returns the next chunk
    /// (`nil` at the end) — for code that reads from a pipe, a socket or a generator.
    ///
    /// `next` is called on a dispatch queue of CurlBridge's, never on the transport's, at most
    /// 1 MiB ahead of what curl has sent; it may block. Length, errors and rewinding behave as for
    /// ``body(streaming:length:contentType:)``.
    ///
    /// - Parameters:
    ///   - length: The total number of bytes, if known.
    ///   - contentType: `application/octet-stream` by default.
    ///   - next: Returns the next chunk, or `nil` when the body is complete.
    public func body(
        length: Int64? = nil, contentType: String? = "application/octet-stream",
        pulling next: @escaping @Sendable () throws -> Data?
    ) -> Request {
        var copy = self
        copy.body = Body(content: .stream(BodyStream(length: length, producer: .pull(next))), contentType: contentType)
        return copy
    }
}
