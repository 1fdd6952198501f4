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
    private var collected: [HTTPField] = []
    /// Whether the next lines belong to a head (after its status line, before its blank line).
    private var isInHead = false

    /// An empty collector, with room for a typical head's fields so that the list does not grow
    /// four times.
    init() {
        collected.reserveCapacity(16)
    }

    /// The fields of the latest head so far.
    var fields: HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(collected.count)
        fields.append(contentsOf: collected)
        return fields
    }

    /// Takes one line, line ending included.
    mutating func take(_ line: UnsafeRawBufferPointer) {
        let content = ResponseHeadGuard.withoutLineEnding(line)
        guard !content.isEmpty else {
            isInHead = false
            return
        }
        if !isInHead {
            // A status line starts the next head; anything else after a head is a trailer.
            if content.starts(with: "HTTP/".utf8) {
                collected.removeAll(keepingCapacity: true)
                isInHead = true
            }
            return
        }
        let first = content[content.startIndex]
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            appendFolded(ResponseHeadGuard.trimmed(content))
            return
        }
        guard let colon = content.firstIndex(of: UInt8(ascii: ":")) else { return }
        let nameBytes = content[..<colon]
        guard let name = Self.commonName(UnsafeRawBufferPointer(rebasing: nameBytes))
            ?? HTTPField.Name(String(decoding: nameBytes, as: UTF8.self))
        else { return }
        let value = ResponseHeadGuard.trimmed(content[(colon + 1)...])
        collected.append(HTTPField(name: name, value: String(decoding: UnsafeRawBufferPointer(rebasing: value), as: UTF8.self)))
    }

    /// Joins a folded continuation to the last field's value.
    private mutating func appendFolded(_ continuation: Slice<UnsafeRawBufferPointer>) {
        guard let field = collected.last else { return }
        collected[collected.count - 1] = HTTPField(name: field.name, value: Array(field.value.utf8) + [UInt8(ascii: " ")] + continuation)
    }

    /// The common response field name `name` spells in any case, if it spells one: taken without
    /// building and validating a string, as most responses carry only these.
    private static func commonName(_ name: UnsafeRawBufferPointer) -> HTTPField.Name? {
        let spells = { (expected: StaticString) in ASCIIBytes.equals(name, expected) }
        switch name.count {
        case 3: return spells("age") ? .age : nil
        case 4: return spells("date") ? .date : spells("etag") ? .eTag : spells("vary") ? .vary : nil
        case 6: return spells("server") ? .server : nil
        case 7: return spells("expires") ? .expires : nil
        case 8: return spells("location") ? .location : nil
        case 10: return spells("connection") ? .connection : spells("set-cookie") ? .setCookie : nil
        case 11: return spells("retry-after") ? .retryAfter : nil
        case 12: return spells("content-type") ? .contentType : nil
        case 13:
            return spells("last-modified") ? .lastModified : spells("accept-ranges") ? .acceptRanges
                : spells("cache-control") ? .cacheControl : spells("content-range") ? .contentRange : nil
        case 14: return spells("content-length") ? .contentLength : nil
        case 16: return spells("content-encoding") ? .contentEncoding : spells("www-authenticate") ? .wwwAuthenticate : nil
        case 17: return spells("transfer-encoding") ? .transferEncoding : nil
        default: return nil
        }
    }
}
