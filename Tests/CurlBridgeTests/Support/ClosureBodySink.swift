@testable import CurlBridge

/// A body sink that hands each piece to a closure: for tests that drive ``Transport`` directly.
final class ClosureBodySink: BodySink, Sendable {
    private let take: @Sendable (UnsafeRawBufferPointer) -> BodyChunkVerdict

    init(_ take: @escaping @Sendable (UnsafeRawBufferPointer) -> BodyChunkVerdict) {
        self.take = take
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict { take(bytes) }
}
