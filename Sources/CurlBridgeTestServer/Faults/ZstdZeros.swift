/// A Zstandard frame (RFC 8878) of a long run of zeros, made by hand: 128 KiB RLE blocks of
/// 4 bytes each (a 3-byte block header and the repeated byte).
enum ZstdZeros {
    /// Bytes each block regenerates: the largest block size.
    static let blockSize = 128 << 10

    /// A frame that decodes to `blocks × 128 KiB` zero bytes.
    static func frame(blocks: Int) -> [UInt8] {
        // Magic number; frame header descriptor 0 (no content size, no checksum, a window
        // descriptor follows); window 2^(10 + 7) = 128 KiB.
        var bytes: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 7 << 3]
        bytes.reserveCapacity(bytes.count + 4 * blocks)
        for index in 0..<blocks {
            let isLast = index == blocks - 1 ? 1 : 0
            let header = isLast | (1 << 1) | (blockSize << 3)  // Block_Type 1: RLE
            bytes += [UInt8(header & 0xFF), UInt8((header >> 8) & 0xFF), UInt8((header >> 16) & 0xFF), 0]
        }
        return bytes
    }
}
