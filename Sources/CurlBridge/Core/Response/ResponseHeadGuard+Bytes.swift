/// The byte rules of header lines, on raw buffer pointers: no slices, no generic collection code
/// and no allocation, as they run for every header line of every response (``ResponseHeaderBlock``
/// reads its lines with them too).
extension ResponseHeadGuard {
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")
    static let comma = UInt8(ascii: ",")

    /// A field that frames the body, which the guard reads.
    enum FramingField {
        case contentLength
        case transferEncoding
    }

    /// Whether `line` starts with `HTTP/`, in capitals: how curl's header lines show a status line.
    @inline(__always)
    static func startsWithStatusLinePrefix(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 5 && line[0] == UInt8(ascii: "H") && line[1] == UInt8(ascii: "T") && line[2] == UInt8(ascii: "T")
            && line[3] == UInt8(ascii: "P") && line[4] == UInt8(ascii: "/")
    }

    /// The line without its final CRLF or LF.
    @inline(__always)
    static func withoutLineEnding(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var count = line.count
        if count > 0, line[count - 1] == UInt8(ascii: "\n") { count -= 1 }
        if count > 0, line[count - 1] == UInt8(ascii: "\r") { count -= 1 }
        return UnsafeRawBufferPointer(rebasing: line[..<count])
    }

    /// `bytes` without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == space || bytes[start] == tab { start += 1 }
        while end > start, bytes[end - 1] == space || bytes[end - 1] == tab { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// Whether `bytes` hold `byte` at `start` or after.
    static func contains(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Bool {
        var index = start
        while index < bytes.count {
            if bytes[index] == byte { return true }
            index += 1
        }
        return false
    }

    /// The code of a status line, `HTTP/<digit>[.<digit>] <3 digits>[ <reason>]` (`line` starts
    /// with `HTTP/`), or `nil` if the line is not that (curl reads `HTTP/21.1 301` as status 1).
    static func statusCode(_ line: UnsafeRawBufferPointer) -> Int? {
        var index = 5
        guard index < line.count, isDigit(line[index]) else { return nil }
        index += 1
        if index < line.count, line[index] == UInt8(ascii: ".") {
            guard index + 1 < line.count, isDigit(line[index + 1]) else { return nil }
            index += 2
        }
        guard index < line.count, line[index] == space else { return nil }
        let codeEnd = index + 4
        guard codeEnd <= line.count, codeEnd == line.count || line[codeEnd] == space else { return nil }
        var code = 0
        for offset in (index + 1)..<codeEnd {
            guard isDigit(line[offset]) else { return nil }
            code = code * 10 + Int(line[offset] &- UInt8(ascii: "0"))
        }
        return code
    }

    /// A non-empty run of ASCII digits as a number, `nil` if it is not one or overflows `Int64`.
    static func decimal(_ digits: UnsafeRawBufferPointer) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard isDigit(byte) else { return nil }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = sum
        }
        return value
    }

    /// Whether `byte` is an ASCII digit.
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// The framing field a token `name` spells in any case, if it spells one: compared a word at a
    /// time with the lowercase name, each byte set to lowercase by its 0x20 bit (exact for token
    /// bytes: the only other byte that reads as `-` so is CR, which no token holds).
    static func framingField(_ name: UnsafeRawBufferPointer) -> FramingField? {
        switch name.count {
        case 14:
            lowercasedWord(name, at: 0) == word("content-") && lowercasedWord(name, at: 6) == word("t-length") ? .contentLength : nil
        case 17:
            lowercasedWord(name, at: 0) == word("transfer") && lowercasedWord(name, at: 8) == word("-encodin")
                && lowercasedWord(name, at: 9) == word("encoding") ? .transferEncoding : nil
        default:
            nil
        }
    }

    /// The eight bytes of `bytes` from `offset`, with every byte's 0x20 bit set (letters in lowercase).
    @inline(__always)
    private static func lowercasedWord(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) | 0x2020_2020_2020_2020
    }

    /// The eight bytes of `text` (eight ASCII characters) as a word loaded from memory.
    @inline(__always)
    private static func word(_ text: StaticString) -> UInt64 {
        UnsafeRawPointer(text.utf8Start).loadUnaligned(as: UInt64.self)
    }

    /// The length of the token that starts `line`: the offset of its first byte that is not a
    /// ``isTokenCharacter(_:)``. Eight bytes at a time while they are letters, digits and `-`
    /// (``nameBytes(_:)``), what field names are made of; byte by byte from the first other byte.
    @inline(__always)
    static func tokenLength(_ line: UnsafeRawBufferPointer) -> Int {
        var index = 0
        while index + 8 <= line.count {
            let word = UInt64(littleEndian: line.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let others = ~nameBytes(word) & 0x8080_8080_8080_8080
            guard others == 0 else {
                index += others.trailingZeroBitCount / 8  // the first byte in memory is the lowest
                break
            }
            index += 8
        }
        while index < line.count, isTokenCharacter(line[index]) { index += 1 }
        return index
    }

    /// The high bit of each byte of `word` that is an ASCII letter, digit or `-`, exactly: the
    /// ranges are compared on the low seven bits, where adding cannot carry into the next byte,
    /// and bytes with the high bit set are none of these.
    private static func nameBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let low = word & 0x7F7F_7F7F_7F7F_7F7F
        let folded = low | ones &* 0x20  // letters in lowercase
        let atLeastA = folded &+ ones &* (0x80 - 0x61)
        let pastZ = folded &+ ones &* (0x80 - 0x7B)
        let atLeastZero = low &+ ones &* (0x80 - 0x30)
        let pastNine = low &+ ones &* (0x80 - 0x3A)
        let inRanges = (atLeastA & ~pastZ) | (atLeastZero & ~pastNine)
        return (inRanges & ~word & high) | isZero(word ^ (ones &* 0x2D))
    }

    /// RFC 9110 `tchar` — `!#$%&'*+-.^_`|~`, digits and letters — as two bit sets, for the bytes
    /// below 64 and those from 64 to 127: a shift and a test per byte, no branch per character.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        let below64: UInt64 = 0x03FF_6CFA_0000_0000
        let from64: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        let set = byte < 64 ? below64 : from64
        return byte < 128 && (set >> UInt64(byte & 63)) & 1 != 0
    }

    /// Whether `value` holds a byte a field value may not: a control character other than a
    /// horizontal tab (NUL, CR, LF and the rest), or DEL.
    ///
    /// Eight bytes at a time (``hasForbiddenByte(_:)``), the last word overlapping the one before
    /// when the length is not a multiple of eight; byte by byte only for values shorter than a word.
    @inline(__always)
    static func containsControlCharacter(_ value: UnsafeRawBufferPointer) -> Bool {
        guard value.count >= 8 else {
            for byte in value where isForbiddenInValue(byte) { return true }
            return false
        }
        var index = 0
        while index + 8 <= value.count {
            if hasForbiddenByte(value.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { return true }
            index += 8
        }
        guard index < value.count else { return false }
        return hasForbiddenByte(value.loadUnaligned(fromByteOffset: value.count - 8, as: UInt64.self))
    }

    /// Whether `word` holds a byte a field value may not. First the word tricks "has a byte less
    /// than n" and "has a zero byte" (Sean Anderson's *Bit Twiddling Hacks*), exact for "any"
    /// though not for which byte: only a word with a byte below 0x20 or equal to 0x7F — a tab,
    /// usually — is judged byte by byte (``forbiddenBytes(_:)``).
    @inline(__always)
    private static func hasForbiddenByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let belowSpace = (word &- ones &* 0x20) & ~word & high
        let xorDelete = word ^ (ones &* 0x7F)
        let delete = (xorDelete &- ones) & ~xorDelete & high
        return belowSpace | delete != 0 && forbiddenBytes(word) != 0
    }

    /// The high bit of each byte of `word` that a field value may not hold, exactly: each byte is
    /// compared on its low seven bits, where adding cannot carry into the next byte, and its high
    /// bit is checked apart.
    private static func forbiddenBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let high: UInt64 = 0x8080_8080_8080_8080
        // The high bit set where the low seven bits are 0x20 or more; a byte is below 0x20 when
        // neither that nor its own high bit is set.
        let belowSpace = ~((word & low7) &+ ones &* 0x60 | word) & high
        let isTab = isZero(word ^ (ones &* 0x09))
        let isDelete = isZero(word ^ (ones &* 0x7F))
        return (belowSpace & ~isTab) | isDelete
    }

    /// The high bit of each byte of `word` that is zero, exactly (no borrow across bytes).
    private static func isZero(_ word: UInt64) -> UInt64 {
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~((word & low7) &+ low7 | word) & 0x8080_8080_8080_8080
    }

    /// Whether a field value may not hold `byte`: a control character other than a horizontal
    /// tab, or DEL.
    private static func isForbiddenInValue(_ byte: UInt8) -> Bool {
        byte != tab && (byte < 0x20 || byte == 0x7F)
    }
}
