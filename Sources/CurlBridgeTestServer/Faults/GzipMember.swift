/// gzip members (RFC 1952) made by hand, with no zlib: one of stored deflate blocks around any
/// bytes (for stacked encodings), and one that inflates to a long run of zeros (the gzip bomb).
enum GzipMember {
    /// `bytes` in stored (uncompressed) deflate blocks: valid gzip of any content.
    static func stored(_ bytes: [UInt8]) -> [UInt8] {
        var deflate: [UInt8] = []
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            let isFinal = offset + length == bytes.count
            deflate.append(isFinal ? 1 : 0)  // BFINAL, BTYPE 00 (stored), padding to the byte
            deflate += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            deflate += bytes[offset..<offset + length]
            offset += length
        } while offset < bytes.count
        return wrap(deflate, checksum: CRC32.checksum(bytes), size: bytes.count)
    }

    /// A member that inflates to `1 + 258 × matches` zero bytes from about `matches / 4` bytes:
    /// one dynamic-Huffman block whose literal/length code gives 1 bit to length 258 (symbol
    /// 285) and whose distance code gives 1 bit to distance 1, so each 258-byte match costs 2 bits
    /// (deflate's best ratio, about 1:1032, as zlib reaches on zeros).
    static func zeros(matches: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, bits: 1)  // BFINAL
        bits.write(2, bits: 2)  // BTYPE 10: dynamic Huffman codes
        bits.write(29, bits: 5)  // HLIT: 286 literal/length codes (up to 285)
        bits.write(0, bits: 5)  // HDIST: 1 distance code
        bits.write(14, bits: 4)  // HCLEN: 18 code-length code lengths, enough to reach symbol 1
        // Code-length code: symbol 18 (run of zeros) gets 1 bit, symbols 1 and 2 get 2 bits each.
        // Listed in deflate's order 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1.
        for length in [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2] as [UInt64] { bits.write(length, bits: 3) }
        // Canonical codes of the code-length code: 18 → 0, 1 → 10, 2 → 11.
        func length2() { bits.writeCode(0b11, length: 2) }
        func length1() { bits.writeCode(0b10, length: 2) }
        func zeroRun(_ count: Int) {
            bits.writeCode(0, length: 1)
            bits.write(UInt64(count - 11), bits: 7)
        }
        // Literal/length lengths: 0 → 2, 1...255 → 0, 256 → 2, 257...284 → 0, 285 → 1; distance 0 → 1.
        length2()
        zeroRun(138)
        zeroRun(117)
        length2()
        zeroRun(28)
        length1()
        length1()
        // Canonical literal/length codes: 285 → 0, literal 0 → 10, end of block (256) → 11.
        bits.writeCode(0b10, length: 2)
        for _ in 0..<matches {
            bits.write(0, bits: 2)  // length 258 (code 0), distance 1 (code 0), no extra bits
        }
        bits.writeCode(0b11, length: 2)
        bits.alignToByte()
        let size = 1 + 258 * matches
        return wrap(bits.bytes, checksum: CRC32.checksum(zeros: size), size: size)
    }

    private static func wrap(_ deflate: [UInt8], checksum: UInt32, size: Int) -> [UInt8] {
        let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]  // deflate, no flags, no time, Unix
        return header + deflate + littleEndian(checksum) + littleEndian(UInt32(truncatingIfNeeded: size))
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
    }
}
