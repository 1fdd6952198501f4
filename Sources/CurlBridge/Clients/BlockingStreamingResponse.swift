import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// A response whose head has arrived and whose body streams in as blocking code reads it: the
/// blocking counterpart of ``StreamingResponse``, from
/// ``BlockingClient/stream(_:bufferLimits:progress:)``. ``read()`` waits for the next chunk.
///
/// Unread bytes wait in a bounded buffer; when it is full the transfer pauses until ``read()``
/// catches up. ``close()`` — or releasing the response — before the end cancels the transfer.
/// A non-2xx status is not an error: check ``status`` before reading, as with ``Response``.
///
/// ```swift
/// let streamed = try client.stream(.get("logs/follow"))
/// while let chunk = try streamed.read() { handle(chunk) }
/// ```
public final class BlockingStreamingResponse: Sendable {
    /// Status, headers and HTTP version.
    public let head: ResponseHead
    /// The status.
    public var status: HTTPResponse.Status { head.status }
    /// The header fields.
    public var headerFields: HTTPFields { head.headerFields }
    private let buffer: ResponseBodyBuffer
    private let arrival: DispatchSemaphore
    private let client: BlockingClient
    /// The transfer's outcome, once ``read()`` reached it.
    private let end = PosixLock<Result<Response, RequestError>?>(nil)

    init(head: ResponseHead, buffer: ResponseBodyBuffer, arrival: DispatchSemaphore, client: BlockingClient) {
        self.head = head
        self.buffer = buffer
        self.arrival = arrival
        self.client = client
    }

    deinit {
        if end.withLock({ $0 == nil }) { buffer.cancel() }
    }

    /// Whether the transfer is paused in curl because unread bytes fill the buffer.
    var isWaitingForRoom: Bool { buffer.isPausedForRoom }

    /// The next chunk of the body, waiting for it; `nil` after the last one.
    ///
    /// - Throws: The transfer's ``RequestError`` (``RequestError/Code/cancelled`` after
    ///   ``close()``), or ``RequestError/Code/blockingRefused`` on a thread where waiting is unsafe.
    @available(*, noasync, message: "blocking calls starve Swift concurrency; use AsyncClient")
    public func read() throws(RequestError) -> Data? {
        if let end = end.withLock({ $0 }) {
            if case .failure(let error) = end { throw error }
            return nil
        }
        if let refusal = BlockingGuard.refusal(client.policy) {
            throw RequestError(.blockingRefused, refusal)
        }
        while true {
            switch buffer.nextItem(waitingOn: arrival) {
            case .head:
                continue
            case .chunk(let data):
                return data
            case .end(let result):
                end.withLock { $0 = result }
                if case .failure(let error) = result { throw error }
                return nil
            }
        }
    }

    /// Reads the rest of the body into memory, failing with ``RequestError/Code/bodyTooLarge`` past
    /// `maximumSize` bytes, as ``ResponseBody/collect(upTo:)`` does for async code.
    @available(*, noasync, message: "blocking calls starve Swift concurrency; use AsyncClient")
    public func collect(upTo maximumSize: Int) throws(RequestError) -> Data {
        var data = Data()
        while let chunk = try read() {
            guard data.count + chunk.count <= maximumSize else {
                close()
                throw RequestError(.bodyTooLarge, "the streamed body exceeds \(maximumSize) bytes")
            }
            data.append(chunk)
        }
        return data
    }

    /// Stops reading: cancels the transfer unless its body was read to the end.
    public func close() {
        buffer.cancel()
    }
}

/// The name ``BlockingStreamingResponse`` had before 0.1.0's one naming scheme for streams.
@available(*, deprecated, renamed: "BlockingStreamingResponse")
public typealias ResponseBodyReader = BlockingStreamingResponse

extension BlockingStreamingResponse {
    /// The name ``collect(upTo:)`` had before it matched ``ResponseBody/collect(upTo:)``.
    @available(*, deprecated, renamed: "collect(upTo:)")
    @available(*, noasync, message: "blocking calls starve Swift concurrency; use AsyncClient")
    public func readAll(upTo maximumSize: Int) throws(RequestError) -> Data {
        try collect(upTo: maximumSize)
    }
}
