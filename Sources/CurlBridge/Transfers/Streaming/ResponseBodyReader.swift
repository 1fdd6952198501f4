import Dispatch
import Foundation

/// A streamed response for blocking code: the head, then the body through ``read()``, which waits
/// for the next chunk. From ``BlockingClient/stream(_:bufferLimits:progress:)``.
///
/// Unread bytes wait in a bounded buffer; when it is full the transfer pauses until ``read()``
/// catches up. ``close()`` — or releasing the reader — before the end cancels the transfer.
///
/// ```swift
/// let reader = try client.stream(.get("logs/follow"))
/// while let chunk = try reader.read() { handle(chunk) }
/// ```
public final class ResponseBodyReader: Sendable {
    /// Status, headers and HTTP version.
    public let head: ResponseHead
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
    /// `maximumSize` bytes.
    @available(*, noasync, message: "blocking calls starve Swift concurrency; use AsyncClient")
    public func readAll(upTo maximumSize: Int) throws(RequestError) -> Data {
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
