/// Records, on the transport's loop, the field lines of a transfer's latest response head from
/// the lines curl's header callback hands over — instead of asking curl's header API for them
/// again (`curl_easy_nextheader` walks its list from the start on every call, and copies every name
/// and value twice) — for a ``ResponseHeaderBlock`` to parse when the fields are read.
///
/// Fed only lines ``ResponseHeadGuard`` accepted, with what the guard read each as. A status line
/// starts a new head (an interim `1xx` head, or a challenge curl answered, is replaced by the
/// next); trailers after the final head are left out.
struct ResponseHeadRecorder {
    /// The field lines of the latest head so far, in the first `count` bytes; the rest is room,
    /// so that a line is one copy into it (it grows by doubling when a head outgrows it).
    private var buffer = [UInt8](repeating: 0, count: 512)
    /// The length of the field lines in `buffer`.
    private var count = 0
    /// The block of the lines so far, made once they stop changing.
    private var block: ResponseHeaderBlock?

    /// The field lines of the latest head so far.
    mutating func headerBlock() -> ResponseHeaderBlock {
        if let block { return block }
        let made = ResponseHeaderBlock(lines: buffer[..<count])
        block = made
        return made
    }

    /// Takes one line, line ending included, which the guard read as `kind`.
    mutating func take(_ line: UnsafeRawBufferPointer, as kind: ResponseHeadGuard.LineKind) {
        switch kind {
        case .statusLine:
            // A status line starts the next head.
            count = 0
            if block != nil { block = nil }
        case .headField:
            append(line)
            if block != nil { block = nil }
        case .otherField, .blank:
            break  // a trailer, or the end of a head
        }
    }

    /// Copies `line` after the lines so far (a block made before keeps its own copy).
    private mutating func append(_ line: UnsafeRawBufferPointer) {
        guard let source = line.baseAddress else { return }
        if count + line.count > buffer.count {
            buffer.append(contentsOf: repeatElement(0, count: max(buffer.count, line.count)))
        }
        buffer.withUnsafeMutableBytes { bytes in
            bytes.baseAddress!.advanced(by: count).copyMemory(from: source, byteCount: line.count)
        }
        count += line.count
    }
}
