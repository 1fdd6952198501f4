/// Records, on the transport's loop, the field lines of a transfer's latest response head from
/// the lines curl's header callback hands over — instead of asking curl's header API for them
/// again (`curl_easy_nextheader` walks its list from the start on every call, and copies every name
/// and value twice) — for a ``ResponseHeaderBlock`` to parse when the fields are read.
///
/// Fed only lines ``ResponseHeadGuard`` accepted. A status line starts a new head (an interim
/// `1xx` head, or a challenge curl answered, is replaced by the next); trailers after the final
/// head are left out.
struct ResponseHeadRecorder {
    /// The field lines of the latest head so far.
    private var lines: [UInt8] = []
    /// Whether the next lines belong to a head (after its status line, before its blank line).
    private var isInHead = false
    /// The block of the lines so far, made once they stop changing.
    private var block: ResponseHeaderBlock?

    /// An empty recorder, with room for a typical head.
    init() {
        lines.reserveCapacity(512)
    }

    /// The field lines of the latest head so far.
    mutating func headerBlock() -> ResponseHeaderBlock {
        if let block { return block }
        let made = ResponseHeaderBlock(lines: lines)
        block = made
        return made
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
            if ResponseHeadGuard.startsWithStatusLinePrefix(content) {
                lines.removeAll(keepingCapacity: true)
                block = nil
                isInHead = true
            }
            return
        }
        lines.append(contentsOf: line)
        block = nil
    }
}
