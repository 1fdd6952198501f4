/// CRC-32 (ISO-HDLC, as gzip's trailer uses it), of bytes or of a long run of zero bytes.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// The CRC-32 of `bytes`.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var register: UInt32 = 0xFFFF_FFFF
        for byte in bytes { register = table[Int((register ^ UInt32(byte)) & 0xFF)] ^ (register >> 8) }
        return ~register
    }

    /// The CRC-32 of `count` zero bytes, in O(log count): feeding a zero byte is a linear map of
    /// the 32-bit register over GF(2), so `count` of them are that matrix to the power `count`
    /// (the method of zlib's `crc32_combine`). A loop over 200 MiB would take seconds in a debug build.
    static func checksum(zeros count: Int) -> UInt32 {
        // Column i is the register after one zero byte fed into a register holding only bit i.
        var power = (0..<32).map { bit in
            let register = UInt32(1) << UInt32(bit)
            return table[Int(register & 0xFF)] ^ (register >> 8)
        }
        var register: UInt32 = 0xFFFF_FFFF
        var remaining = count
        while remaining > 0 {
            if remaining & 1 == 1 { register = apply(power, to: register) }
            power = power.map { apply(power, to: $0) }
            remaining >>= 1
        }
        return ~register
    }

    private static func apply(_ matrix: [UInt32], to vector: UInt32) -> UInt32 {
        var result: UInt32 = 0
        for bit in 0..<32 where vector & (1 << UInt32(bit)) != 0 { result ^= matrix[bit] }
        return result
    }
}
