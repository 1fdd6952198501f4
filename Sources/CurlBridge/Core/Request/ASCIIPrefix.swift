extension String {
    /// Whether the text starts with `prefix` — lowercase ASCII, such as `"https:"` or a header
    /// name — with letters compared without regard to case; byte by byte, allocating nothing, for
    /// checks that run on every request (a literal: no second string's storage to open).
    func hasASCIIPrefixIgnoringCase(_ prefix: StaticString) -> Bool {
        if let result = utf8.withContiguousStorageIfAvailable({ ASCIIBytes.hasPrefix(UnsafeRawBufferPointer($0), prefix) }) {
            return result
        }
        return prefix.withUTF8Buffer { expected in
            var bytes = utf8.makeIterator()
            for wanted in expected {
                guard let byte = bytes.next(), ASCIIBytes.matches(byte, wanted) else { return false }
            }
            return true
        }
    }

    /// Whether this curl header line (`"Name: value"`, or `"Name;"` for an empty value) sets the
    /// header `name`, given in lowercase.
    func isCurlHeaderLine(named name: StaticString) -> Bool {
        guard hasASCIIPrefixIgnoringCase(name) else { return false }
        let separator = utf8.dropFirst(name.utf8CodeUnitCount).first
        return separator == UInt8(ascii: ":") || separator == UInt8(ascii: ";")
    }
}

/// Case-insensitive ASCII matching on raw bytes — URL schemes, header names — for checks that
/// run on every request or header line: plain loops, nothing allocated.
enum ASCIIBytes {
    /// Whether `byte` is `expected` (lowercase ASCII), a letter in either case.
    static func matches(_ byte: UInt8, _ expected: UInt8) -> Bool {
        let isLetter = expected >= UInt8(ascii: "a") && expected <= UInt8(ascii: "z")
        return byte == expected || (isLetter && byte | 0x20 == expected)
    }

    /// Whether `bytes` start with the lowercase ASCII `expected`, letters in either case.
    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ expected: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= expected.count else { return false }
        for index in 0..<expected.count where !matches(bytes[index], expected[index]) {
            return false
        }
        return true
    }

    /// Whether `bytes` start with the lowercase ASCII `expected`, letters in either case.
    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ expected: StaticString) -> Bool {
        // `withUTF8Buffer`, not `utf8Start`: a one-character literal is held as a scalar, with no pointer.
        expected.withUTF8Buffer { hasPrefix(bytes, UnsafeRawBufferPointer($0)) }
    }

    /// Whether `bytes` are the lowercase ASCII `expected`, letters in either case.
    static func equals(_ bytes: UnsafeRawBufferPointer, _ expected: StaticString) -> Bool {
        bytes.count == expected.utf8CodeUnitCount && hasPrefix(bytes, expected)
    }
}
