import HTTPTypes

/// Builds the header fields of a transfer's last response head from the lines curl's header
/// callback hands over, once each, as they arrive — instead of asking curl's header API for
/// them again (`curl_easy_nextheader` walks its list from the start on every call, and every
/// name and value is copied into a new string twice).
///
/// Fed only lines ``ResponseHeadGuard`` accepted, so every field line has a token name and a
/// colon. The fields are those curl's header API reports for the last request with
/// `CURLH_HEADER`: a status line starts a new head (an interim `1xx` head, or a challenge curl
/// answered, is replaced by the next), trailers after the final head are left out, values lose
/// their surrounding spaces and tabs, and an obsolete folded line joins the previous value after
/// one space.
struct ResponseFieldCollector {
    /// The fields of the latest head so far.
    private(set) var fields = HTTPFields()
    /// Whether the next lines belong to a head (after its status line, before its blank line).
    private var isInHead = false

    /// Takes one line, line ending included.
    mutating func take(_ line: UnsafeRawBufferPointer) {
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end > 0 else {
            isInHead = false
            return
        }
        if !isInHead {
            // A status line starts the next head; anything else after a head is a trailer.
            if end >= 5, line.starts(with: "HTTP/".utf8) {
                fields = HTTPFields()
                isInHead = true
            }
            return
        }
        let content = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if content[0] == UInt8(ascii: " ") || content[0] == UInt8(ascii: "\t") {
            appendFolded(Self.trimmed(content[...]))
            return
        }
        guard let colon = content.firstIndex(of: UInt8(ascii: ":")),
              let name = HTTPField.Name(String(decoding: content[..<colon], as: UTF8.self))
        else { return }
        fields.append(HTTPField(name: name, value: Self.trimmed(content[(colon + 1)...])))
    }

    /// Joins a folded continuation to the last field's value.
    private mutating func appendFolded(_ continuation: Slice<UnsafeRawBufferPointer>) {
        guard let last = fields.indices.last else { return }
        let field = fields[last]
        fields[last] = HTTPField(name: field.name, value: Array(field.value.utf8) + [UInt8(ascii: " ")] + continuation)
    }

    /// `bytes` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return bytes[start..<end]
    }
}
