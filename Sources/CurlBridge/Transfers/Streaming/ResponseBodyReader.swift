import Dispatch
import Foundation
import Synchronization

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
    private let buffer: ResponseBodyBuffer
    private let arrival: DispatchSemaphore
    private let client: BlockingClient
    private let state = Mutex(State())

    private struct State {
        var head: ResponseHead?
        var end: Result<Response, RequestError>?
    }

    init(buffer: ResponseBodyBuffer, arrival: DispatchSemaphore, client: BlockingClient) {
        self.buffer = buffer
        self.arrival = arrival
        self.client = client
    }

    deinit {
        if state.withLock({ $0.end == nil }) { buffer.cancel() }
    }

    /// Status, headers and HTTP version.
    public var head: ResponseHead {
        // Set before the reader is handed out.
        state.withLock { $0.head } ?? ResponseHead(status: .ok, headerFields: [:], httpVersion: .http1_1)
    }

    /// Whether the transfer is paused in curl because unread bytes fill the buffer.
    var isWaitingForRoom: Bool { buffer.isPausedForRoom }

    /// Waits for the head; throws the transfer's error when it failed first.
    func readHead() throws(RequestError) {
        switch nextItem() {
        case .head(let head):
            state.withLock { $0.head = head }
        case .chunk:
            preconditionFailure("a body chunk cannot precede the head")
        case .end(.failure(let error)):
            state.withLock { $0.end = .failure(error) }
            throw error
        case .end(.success(let response)):
            state.withLock {
                $0.head = ResponseHead(status: response.status, headerFields: response.headerFields, httpVersion: response.httpVersion)
                $0.end = .success(response)
            }
        }
    }

    /// The next chunk of the body, waiting for it; `nil` after the last one.
    ///
    /// - Throws: The transfer's ``RequestError`` (``RequestError/Code/cancelled`` after
    ///   ``close()``), or ``RequestError/Code/blockingRefused`` on a thread where waiting is unsafe.
    @available(*, noasync, message: "blocking calls starve Swift concurrency; use AsyncClient")
    public func read() throws(RequestError) -> Data? {
        if let end = state.withLock({ $0.end }) {
            if case .failure(let error) = end { throw error }
            return nil
        }
        if let refusal = BlockingGuard.refusal(client.policy) {
            throw RequestError(.blockingRefused, refusal)
        }
        while true {
            switch nextItem() {
            case .head:
                continue
            case .chunk(let data):
                return data
            case .end(let result):
                state.withLock { $0.end = result }
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

    private func nextItem() -> ResponseBodyBuffer.Item {
        while true {
            if let item = buffer.take() { return item }
            arrival.wait()
        }
    }
}
