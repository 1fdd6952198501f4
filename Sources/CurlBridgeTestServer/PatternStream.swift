import NIOCore

/// Cuts a stretch of the byte pattern (see ``PatternBytes``) into chunks, front to back.
struct PatternStream {
    /// Bytes not yet handed out.
    private(set) var remaining: Int
    /// The pattern offset of the next byte.
    private var offset: Int
    private let chunkSize: Int

    /// A stream of `count` bytes starting at pattern offset `start`, so that its byte `i` is
    /// `UInt8((start + i) % 251)`, in chunks of at most `chunkSize` (clamped to
    /// `1 ... PatternBytes.maximumSliceLength`).
    init(count: Int, chunkSize: Int = PatternBytes.maximumSliceLength, startingAt start: Int = 0) {
        self.remaining = count
        self.offset = start
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
