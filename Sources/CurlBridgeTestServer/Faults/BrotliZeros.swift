/// A brotli stream (RFC 7932) of a long run of zeros, made by hand: each meta-block of 16 MiB
/// is one command, "insert one literal 0, copy 16 MiB − 1 bytes from distance 1", with every
/// prefix code a one-symbol simple code (zero bits per symbol), so 16 MiB cost 13 bytes.
enum BrotliZeros {
    /// Bytes of each meta-block: the largest MLEN (24 bits).
    static let metaBlockSize = 1 << 24

    /// A stream that decodes to `metaBlocks × 16 MiB` zero bytes.
    static func stream(metaBlocks: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(0, bits: 1)  // WBITS 16: distance 1 is all this stream needs
        for _ in 0..<metaBlocks {
            bits.write(0, bits: 1)  // ISLAST 0
            bits.write(2, bits: 2)  // MNIBBLES: 6 nibbles
            bits.write(UInt64(metaBlockSize - 1), bits: 24)  // MLEN − 1
            bits.write(0, bits: 1)  // ISUNCOMPRESSED 0
            bits.write(0, bits: 3)  // NBLTYPESL, NBLTYPESI, NBLTYPESD: one block type each
            bits.write(0, bits: 2)  // NPOSTFIX 0
            bits.write(0, bits: 4)  // NDIRECT 0
            bits.write(0, bits: 2)  // context mode of the literal block type: LSB6
            bits.write(0, bits: 2)  // NTREESL, NTREESD: one prefix code each, no context maps
            simpleCode(&bits, symbol: 0, alphabetBits: 8)  // literals: only 0
            // Insert-and-copy: insert code 1 (one literal), copy code 23 (2118 + 24 extra bits),
            // explicit distance: 384 + (1 << 3) + 7.
            simpleCode(&bits, symbol: 399, alphabetBits: 10)
            simpleCode(&bits, symbol: 16, alphabetBits: 6)  // distances: code 16, 1 extra bit, 0 → distance 1
            // The one command: its symbols cost nothing; then the copy length's extra bits, the
            // literal (nothing), the distance's extra bit.
            bits.write(UInt64(metaBlockSize - 1 - 2118), bits: 24)
            bits.write(0, bits: 1)
        }
        bits.write(1, bits: 1)  // ISLAST
        bits.write(1, bits: 1)  // ISLASTEMPTY
        bits.alignToByte()
        return bits.bytes
    }

    /// A simple prefix code of one symbol: HSKIP 1, NSYM − 1 = 0, the symbol.
    private static func simpleCode(_ bits: inout BitWriter, symbol: UInt64, alphabetBits: Int) {
        bits.write(1, bits: 2)
        bits.write(0, bits: 2)
        bits.write(symbol, bits: alphabetBits)
    }
}
