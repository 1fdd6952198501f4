import NIOCore

/// The deterministic body of `/bytes/N` and `/chunked/N`: byte `i` is `UInt8(i % 251)`;
/// `/resource/N` sends it shifted by its version.
///
/// The pattern repeats every 251 bytes, so every chunk is a zero-copy slice of one shared buffer.
enum PatternBytes {
    /// The pattern's period.
    static let period = 251
    /// The longest chunk ``slice(startingAt:length:)`` can return.
    static let maximumSliceLength = 64 * 1024

    /// `period + maximumSliceLength` bytes of the pattern, starting at byte 0.
    private static let source: ByteBuffer = {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(period + maximumSliceLength)
        for index in 0..<(period + maximumSliceLength) {
            buffer.writeInteger(UInt8(index % period))
        }
        return buffer
    }()

    /// The pattern bytes at pattern offsets `offset ..< offset + length`.
    ///
    /// - Precondition: `0 <= length <= maximumSliceLength` and `offset >= 0`.
    static func slice(startingAt offset: Int, length: Int) -> ByteBuffer {
        guard let slice = source.getSlice(at: offset % period, length: length) else {
            preconditionFailure("pattern slice of \(length) bytes exceeds \(maximumSliceLength)")
        }
        return slice
    }
}
