import HTTPTypes

/// The field lines of a response head as curl delivered them, parsed into `HTTPFields` only when
/// someone asks, once.
///
/// Most callers of a plain send read the body and the status and never the fields; building an
/// `HTTPField` (a validated name, a string value) for every line costs about a tenth of a small
/// request's instructions on the transport's loop. The loop only records the lines
/// (``ResponseHeadRecorder``); the first reader parses them, on its own thread.
///
/// The lines are those ``ResponseHeadGuard`` accepted, so every field line has a token name and a
/// colon. The fields are those curl's header API reports with `CURLH_HEADER`: values lose their
/// surrounding spaces and tabs, and an obsolete folded line joins the previous value after one
/// space.
///
/// A copy shares the block. One heap object (``Storage``) holds the lines, the lock that guards
/// the first parse and then the fields: the recorder writes the lines straight into it, so a
/// response's head costs one allocation, not one for the lines and another for a lock around them.
///
/// `@unchecked Sendable`: a block's storage is never written once the (non-copyable)
/// ``ResponseHeadRecorder`` has handed it out, so its lines are read-only once a block exists, and
/// the parsed fields are read and written only between `pthread_mutex_lock` and
/// `pthread_mutex_unlock`.
struct ResponseHeaderBlock: @unchecked Sendable {
    private let storage: Storage

    /// The block of what `storage` holds, which nothing writes any more.
    init(sealed storage: Storage) {
        self.storage = storage
    }

    /// The fields, parsed on first use.
    var fields: HTTPFields {
        storage.fields(parsing: Self.parse)
    }

    /// The fields of `bytes`, field lines each with its line ending.
    private static func parse(_ bytes: UnsafeRawBufferPointer) -> HTTPFields {
        var collected: [HTTPField] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            let line = ResponseHeadGuard.withoutLineEnding(UnsafeRawBufferPointer(rebasing: bytes[start..<min(end + 1, bytes.count)]))
            take(line, into: &collected)
            start = end + 1
        }
        var fields = HTTPFields()
        fields.reserveCapacity(collected.count)
        fields.append(contentsOf: collected)
        return fields
    }

    /// Adds the field of one line (line ending removed) to `collected`, or joins a folded line to
    /// the last field.
    private static func take(_ content: UnsafeRawBufferPointer, into collected: inout [HTTPField]) {
        guard !content.isEmpty else { return }
        let first = content[0]
        if first == ResponseHeadGuard.space || first == ResponseHeadGuard.tab {
            guard let field = collected.last else { return }
            let continuation = ResponseHeadGuard.trimmed(content)
            collected[collected.count - 1] = HTTPField(
                name: field.name, value: Array(field.value.utf8) + [ResponseHeadGuard.space] + continuation)
            return
        }
        guard let colon = content.firstIndex(of: ResponseHeadGuard.colon) else { return }
        let nameBytes = UnsafeRawBufferPointer(rebasing: content[..<colon])
        guard let name = commonName(nameBytes) ?? HTTPField.Name(String(decoding: nameBytes, as: UTF8.self)) else { return }
        let value = ResponseHeadGuard.trimmed(UnsafeRawBufferPointer(rebasing: content[(colon + 1)...]))
        collected.append(HTTPField(name: name, value: String(decoding: value, as: UTF8.self)))
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
