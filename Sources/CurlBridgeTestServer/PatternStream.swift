import NIOCore

/// Cuts a pattern body of a given length into chunks, front to back.
struct PatternStream {
    /// Bytes not yet handed out.
    private(set) var remaining: Int
    private var offset = 0
    private let chunkSize: Int

    /// A stream of `count` bytes in chunks of at most `chunkSize` (clamped to
    /// `1 ... PatternBytes.maximumSliceLength`).
    init(count: Int, chunkSize: Int) {
        self.remaining = count
        self.chunkSize = min(max(chunkSize, 1), PatternBytes.maximumSliceLength)
    }

    /// The next chunk, or `nil` when all bytes were handed out.
    mutating func nextChunk() -> ByteBuffer? {
        guard self.remaining > 0 else { return nil }
        let length = min(self.chunkSize, self.remaining)
        defer {
            self.offset += length
            self.remaining -= length
        }
        return PatternBytes.slice(startingAt: self.offset, length: length)
    }
}
