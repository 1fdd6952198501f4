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
    /// The fields of the latest head so far, in order (appended to an `HTTPFields` once, when
    /// asked for: appending one by one goes through its generic collection witnesses).
    private var collected: [HTTPField] = Self.emptyWithRoom()
    /// Whether the next lines belong to a head (after its status line, before its blank line).
    private var isInHead = false

    /// The fields of the latest head so far.
    var fields: HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(collected.count)
        fields.append(contentsOf: collected)
        return fields
    }
    /// An empty list with room for a typical head's fields, so that it does not grow four times.
    private static func emptyWithRoom() -> [HTTPField] {
        var fields: [HTTPField] = []
        fields.reserveCapacity(16)
        return fields
    }

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
                collected.removeAll(keepingCapacity: true)
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
              let name = Self.commonName(content[..<colon]) ?? HTTPField.Name(String(decoding: content[..<colon], as: UTF8.self))
        else { return }
        let value = Self.trimmed(content[(colon + 1)...])
        collected.append(HTTPField(name: name, value: String(decoding: UnsafeRawBufferPointer(rebasing: value), as: UTF8.self)))
    }

    /// Joins a folded continuation to the last field's value.
    private mutating func appendFolded(_ continuation: Slice<UnsafeRawBufferPointer>) {
        guard let field = collected.last else { return }
        collected[collected.count - 1] = HTTPField(name: field.name, value: Array(field.value.utf8) + [UInt8(ascii: " ")] + continuation)
    }

    /// The common response field name `bytes` spell in any case, if they spell one: taken without
    /// building and validating a string, as most responses carry only these.
    private static func commonName(_ bytes: Slice<UnsafeRawBufferPointer>) -> HTTPField.Name? {
        let name = UnsafeRawBufferPointer(rebasing: bytes)
        switch name.count {
        case 3: return spells(name, "age") ? .age : nil
        case 4: return spells(name, "date") ? .date : spells(name, "etag") ? .eTag : spells(name, "vary") ? .vary : nil
        case 6: return spells(name, "server") ? .server : nil
        case 7: return spells(name, "expires") ? .expires : nil
        case 8: return spells(name, "location") ? .location : nil
        case 10: return spells(name, "connection") ? .connection : spells(name, "set-cookie") ? .setCookie : nil
        case 11: return spells(name, "retry-after") ? .retryAfter : nil
        case 12: return spells(name, "content-type") ? .contentType : nil
        case 13:
            return spells(name, "last-modified") ? .lastModified : spells(name, "accept-ranges") ? .acceptRanges
                : spells(name, "cache-control") ? .cacheControl : spells(name, "content-range") ? .contentRange : nil
        case 14: return spells(name, "content-length") ? .contentLength : nil
        case 16: return spells(name, "content-encoding") ? .contentEncoding : spells(name, "www-authenticate") ? .wwwAuthenticate : nil
        case 17: return spells(name, "transfer-encoding") ? .transferEncoding : nil
        default: return nil
        }
    }

    /// Whether `bytes`, as long as `lowercase`, spell it in any ASCII case.
    private static func spells(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        for offset in 0..<bytes.count {
            let byte = bytes[offset]
            let lowered = UInt8(ascii: "A")...UInt8(ascii: "Z") ~= byte ? byte | 0x20 : byte
            guard lowered == lowercase.utf8Start[offset] else { return false }
        }
        return true
    }

    /// `bytes` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return bytes[start..<end]
    }
}
