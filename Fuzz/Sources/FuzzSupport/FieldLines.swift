import HTTPTypes
@testable import CurlBridge

/// Header fields written as text lines, as the cache targets read them from the fuzzer: one
/// `Name: value` per LF-separated line, spaces and tabs after the colon dropped. A line whose
/// name is not a valid field name is skipped. A line may start with `*N ` to stand for `N`
/// copies of itself (at most ``maximumCount`` fields in all), so that a short input can reach
/// the field counts a 256 KiB response head or a large entry file holds.
public enum FieldLines {
    /// The most fields one block of lines yields: more than `HTTPFields` can hold (65,534).
    public static let maximumCount = 70_000

    /// The lines of `bytes` as `(name, value)` byte pairs, names unchecked.
    public static func pairs(_ bytes: [UInt8]) -> [(name: [UInt8], value: [UInt8])] {
        var pairs: [(name: [UInt8], value: [UInt8])] = []
        for var line in bytes.split(separator: 0x0A) {
            var copies = 1
            if line.first == UInt8(ascii: "*"), let space = line.firstIndex(of: 0x20),
               let count = Int(String(decoding: line[line.index(after: line.startIndex)..<space], as: UTF8.self)), count >= 0 {
                copies = count
                line = line[line.index(after: space)...]
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == 0x20 || $0 == 0x09 }
            let pair = (name: Array(line[..<colon]), value: Array(value))
            for _ in 0..<min(copies, maximumCount - pairs.count) { pairs.append(pair) }
            if pairs.count >= maximumCount { break }
        }
        return pairs
    }

    /// The fields of `bytes`' lines with valid names, values as raw bytes (a byte that is not
    /// UTF-8 stays in the value, and reads back repaired), at most 65,534 of them (all
    /// `HTTPFields` holds).
    public static func fields(_ bytes: [UInt8]) -> HTTPFields {
        var fields: [HTTPField] = []
        for pair in pairs(bytes) where fields.count < StoredResponse.maximumFieldCount {
            guard let name = HTTPField.Name(String(decoding: pair.name, as: UTF8.self)) else { continue }
            fields.append(HTTPField(name: name, value: pair.value))
        }
        return HTTPFields(fields)
    }
}
