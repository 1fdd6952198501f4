extension String {
    /// Whether the text starts with `prefix` — lowercase ASCII, such as `"https:"` or a header
    /// name — with letters compared without regard to case; byte by byte, allocating nothing, for
    /// checks that run on every request.
    func hasASCIIPrefixIgnoringCase(_ prefix: String) -> Bool {
        let contiguous = utf8.withContiguousStorageIfAvailable { bytes in
            prefix.utf8.withContiguousStorageIfAvailable { expected in Self.hasPrefix(bytes, expected) }
        }
        if let contiguous, let result = contiguous { return result }
        var bytes = utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next() else { return false }
            let isLetter = expected >= UInt8(ascii: "a") && expected <= UInt8(ascii: "z")
            guard byte == expected || (isLetter && byte | 0x20 == expected) else { return false }
        }
        return true
    }

    /// Whether `bytes` start with the lowercase ASCII `expected`, letters in any case.
    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ expected: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= expected.count else { return false }
        for index in 0..<expected.count {
            let (byte, wanted) = (bytes[index], expected[index])
            let isLetter = wanted >= UInt8(ascii: "a") && wanted <= UInt8(ascii: "z")
            guard byte == wanted || (isLetter && byte | 0x20 == wanted) else { return false }
        }
        return true
    }

    /// Whether this curl header line (`"Name: value"`, or `"Name;"` for an empty value) sets the
    /// header `name`, given in lowercase.
    func isCurlHeaderLine(named name: String) -> Bool {
        guard hasASCIIPrefixIgnoringCase(name) else { return false }
        let separator = utf8.dropFirst(name.utf8.count).first
        return separator == UInt8(ascii: ":") || separator == UInt8(ascii: ";")
    }
}
