#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A streamed response's body as it arrives: an `AsyncSequence` of chunks, the async form of
/// NSURLSession's `didReceiveData`.
///
/// The body is buffered up to ``BufferLimits/highWatermark`` bytes ahead of the reader; beyond that
/// the transfer pauses until the reader catches up. Iterate it once, from one task at a time
/// (like an `AsyncStream`). Cancelling the iterating
/// task, or dropping the sequence and its iterator before the end, cancels the transfer.
///
/// ```swift
/// let streamed = try await client.stream(.get("video.mp4"))
/// for try await chunk in streamed.body { player.append(chunk) }
/// ```
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body, as it arrived (after content decoding).
    public typealias Element = Data
    /// What iterating throws: the transfer's ``RequestError``.
    public typealias Failure = RequestError

    private let lifetime: StreamLifetime

    init(buffer: ResponseBodyBuffer) {
        lifetime = StreamLifetime(buffer: buffer)
    }

    /// Whether the transfer is paused in curl because unread bytes fill the buffer.
    var isWaitingForRoom: Bool { lifetime.buffer.isPausedForRoom }

    /// Returns the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(lifetime: lifetime)
    }

    /// Collects the rest of the body in memory, failing with ``RequestError/Code/bodyTooLarge``
    /// past `maximumSize` bytes.
    public func collect(upTo maximumSize: Int) async throws(RequestError) -> Data {
        var data = Data()
        var iterator = makeAsyncIterator()
        while let chunk = try await iterator.next() {
            guard data.count + chunk.count <= maximumSize else {
                lifetime.buffer.cancel()
                throw RequestError(.bodyTooLarge, "the streamed body exceeds \(maximumSize) bytes")
            }
            data.append(chunk)
        }
        return data
    }

    /// Reads the chunks of a ``ResponseBody`` in order.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let lifetime: StreamLifetime

        /// The next chunk, or `nil` after the last one.
        ///
        /// - Throws: The transfer's ``RequestError``, including ``RequestError/Code/cancelled``
        ///   when the task is cancelled.
        public mutating func next() async throws(RequestError) -> Data? {
            guard !lifetime.isFinished else { return nil }
            while true {
                switch await lifetime.buffer.nextItem() {
                case .head:
                    continue
                case .chunk(let data):
                    return data
                case .end(let result):
                    lifetime.isFinished = true
                    if case .failure(let error) = result { throw error }
                    return nil
                }
            }
        }

        /// The next chunk, or `nil` after the last one.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(RequestError) -> Data? {
            try await next()
        }
    }
}

/// Cancels a streamed transfer whose body nobody reads any more: released with the last copy of
/// its ``ResponseBody`` and iterators.
final class StreamLifetime: Sendable {
    let buffer: ResponseBodyBuffer
    private let finished = Synchronization.Atomic<Bool>(false)

    init(buffer: ResponseBodyBuffer) {
        self.buffer = buffer
    }

    /// Whether the end was read.
    var isFinished: Bool {
        get { finished.load(ordering: .acquiring) }
        set { finished.store(newValue, ordering: .releasing) }
    }

    deinit {
        if !isFinished { buffer.cancel() }
    }
}
