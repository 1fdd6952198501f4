/// Packs bit fields least-significant bit first into bytes, as deflate (RFC 1951) and brotli
/// (RFC 7932) lay out their streams; the hand-made encoders of ``CompressionBomb`` write with it.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var pending: UInt64 = 0
    private var pendingCount = 0

    /// Appends the low `count` bits of `value` (at most 32), lowest first.
    mutating func write(_ value: UInt64, bits count: Int) {
        pending |= (value & ((1 << UInt64(count)) - 1)) << UInt64(pendingCount)
        pendingCount += count
        while pendingCount >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: pending))
            pending >>= 8
            pendingCount -= 8
        }
    }

    /// Appends a Huffman code of `length` bits, most significant bit first (deflate's order for
    /// codes, the reverse of its order for every other field).
    mutating func writeCode(_ code: UInt64, length: Int) {
        var reversed: UInt64 = 0
        for bit in 0..<length where code & (1 << UInt64(length - 1 - bit)) != 0 {
            reversed |= 1 << UInt64(bit)
        }
        write(reversed, bits: length)
    }

    /// Pads with zero bits to the next byte boundary.
    mutating func alignToByte() {
        if pendingCount > 0 { write(0, bits: 8 - pendingCount) }
    }
}
