/// Records, on the transport's loop, the field lines of a transfer's latest response head from
/// the lines curl's header callback hands over — instead of asking curl's header API for them
/// again (`curl_easy_nextheader` walks its list from the start on every call, and copies every name
/// and value twice) — for a ``ResponseHeaderBlock`` to parse when the fields are read.
///
/// Fed only lines ``ResponseHeadGuard`` accepted, with what the guard read each as. A status line
/// starts a new head (an interim `1xx` head, or a challenge curl answered, is replaced by the
/// next); trailers after the final head are left out.
struct ResponseHeadRecorder {
    /// The field lines of the latest head so far.
    private var lines: [UInt8] = []
    /// The block of the lines so far, made once they stop changing.
    private var block: ResponseHeaderBlock?

    /// An empty recorder, holding no memory until the first status line (see ``take(_:as:)``).
    init() {}

    /// The field lines of the latest head so far.
    mutating func headerBlock() -> ResponseHeaderBlock {
        if let block { return block }
        let made = ResponseHeaderBlock(lines: lines)
        block = made
        return made
    }

    /// Takes one line, line ending included, which the guard read as `kind`.
    mutating func take(_ line: UnsafeRawBufferPointer, as kind: ResponseHeadGuard.LineKind) {
        switch kind {
        case .statusLine:
            // A status line starts the next head. The first makes room for a typical head (room,
            // not zeroed bytes: filling 512 bytes costs more than the appends it would spare), so
            // a transfer still waiting for its answer holds none (1,000 in flight, issue 37).
            if lines.capacity == 0 {
                lines.reserveCapacity(512)
            } else {
                lines.removeAll(keepingCapacity: true)
            }
            if block != nil { block = nil }
        case .headField:
            // As typed bytes, which the array copies as a block rather than byte by byte.
            lines.append(contentsOf: line.assumingMemoryBound(to: UInt8.self))
            if block != nil { block = nil }
        case .otherField, .blank:
            break  // a trailer, or the end of a head
        }
    }
}
