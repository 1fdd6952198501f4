/// A second reading of `Cache-Control`, by the letter of the grammar: RFC 9110's list
/// (`#element`, empty elements allowed, OWS around commas) of RFC 9111's
/// `token [ "=" ( token / quoted-string ) ]`, quoted-strings with quoted-pairs (§5.6.4). Where a
/// field's lines are well-formed, `CacheControl` must read what this reads.
enum StrictDirectives {
    /// The directives of `line`, names lowercased and values unquoted, or `nil` when the line is
    /// not well-formed.
    static func read(_ line: String) -> [(name: String, value: String?)]? {
        let bytes = Array(line.utf8)
        var index = 0
        var directives: [(name: String, value: String?)] = []
        func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        }
        func token() -> String? {
            let start = index
            while index < bytes.count, isTokenByte(bytes[index]) { index += 1 }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }
        /// The quoted-string at `index` (its opening quote), unescaped; `nil` when unterminated.
        func quotedString() -> String? {
            index += 1
            var unescaped: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: unescaped, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.count, isQuotedPairByte(bytes[index + 1]) else { return nil }
                    unescaped.append(bytes[index + 1])
                    index += 2
                case 0x09, 0x20, 0x21, 0x23...0x5B, 0x5D...0x7E, 0x80...0xFF:
                    unescaped.append(byte)
                    index += 1
                default:
                    return nil
                }
            }
            return nil
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { return directives }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard let name = token() else { return nil }
            var value: String?
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    guard let quoted = quotedString() else { return nil }
                    value = quoted
                } else {
                    guard let argument = token() else { return nil }
                    value = argument
                }
            }
            directives.append((String(decoding: name.utf8.map(lowercase), as: UTF8.self), value))
            skipWhitespace()
            guard index == bytes.count || bytes[index] == UInt8(ascii: ",") else { return nil }
        }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func isQuotedPairByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x20 || (0x21...0x7E).contains(byte) || byte >= 0x80
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// A delta-seconds value (RFC 9111 §1.2.2): its number, or 2^31 - 1 for any larger number
    /// (§1.2.2 lets a cache count those as that); `nil` when it is not only digits.
    static func seconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let digits = text.drop { $0 == "0" }
        return digits.count > 10 ? Int(Int32.max) : min(Int(digits) ?? 0, Int(Int32.max))
    }
}
