import HTTPTypes

/// Checks a response's header lines one by one, as curl's header callback hands them over, and
/// refuses what a strict HTTP client must not accept — what libcurl 7.88 lets through:
///
/// - a header section larger than the cap (every head of the transfer and its trailers, counted
///   as received: a flood of headers stops at the cap, not at memory exhaustion);
/// - a status code outside 100...599, or a status line that is not `HTTP/<version> <3 digits>`;
/// - a field name that is not a token (`Content-Length : 5`, which curl ignores, so that another
///   reader of the same bytes would see a different body length);
/// - control characters in a field value: a bare CR, NUL, or any other except horizontal tab;
/// - `Content-Length` values that disagree, overflow or are not numbers, and `Content-Length`
///   together with `Transfer-Encoding` (RFC 9112 §6.3: "ought to be handled as an error"):
///   the framings that make response smuggling possible.
///
/// Obsolete line folding is accepted — curl joins a folded line to the previous value, as RFC
/// 9112 §5.2 asks of a user agent — except after `Content-Length` or `Transfer-Encoding`: curl
/// frames the body by the first line alone, so the joined value the caller would see
/// (`Content-Length: 5` then ` 12`) differs from what curl read. A pure value with no curl in
/// it, so it is unit-tested and fuzzed directly.
///
/// It runs for every header line of every response, on the transport's loop: each line is read
/// once, through raw buffer pointers, with the byte rules of `ResponseHeadGuard+Bytes.swift`
/// (the name scanned up to its colon and the value scanned for control characters, both eight
/// bytes at a time where they can be), allocating nothing. What it made of the line (``lastLine``) tells the recorder and the transfer's
/// challenge hold, so that they need not read it again.
struct ResponseHeadGuard {
    /// What a line means for the transfer.
    enum Verdict: Equatable {
        /// Nothing to act on.
        case accept
        /// The line ended a final (non-`1xx`) head, which declared this body length, if any.
        case finalHeadEnded(status: Int, declaredLength: Int64?)
        /// The response must be refused, for this reason.
        case reject(Rejection)
    }

    /// What an accepted line is.
    enum LineKind: Equatable {
        /// A status line, starting a head.
        case statusLine
        /// A field line (or a folded continuation) of the head being read.
        case headField
        /// A field line outside a head: a trailer, or a line before any status line.
        case otherField
        /// The blank line that ends a head (or the trailers).
        case blank
    }

    /// Where the reader is within the transfer's header lines.
    private enum Phase {
        /// Before the first status line, or after an interim (`1xx`) head.
        case awaitingStatus
        /// Inside a head whose status line has been read.
        case head
        /// After a final head: any further line (not a status line) is a trailer.
        case trailers
    }

    /// The most header bytes accepted.
    let limit: Int
    /// Header bytes received so far, every head and trailer included.
    private(set) var receivedBytes = 0
    /// The number of status lines received so far.
    private(set) var statusLines = 0
    /// What the last line inspected was (meaningful when it was accepted).
    private(set) var lastLine = LineKind.blank
    private var phase = Phase.awaitingStatus
    private var status = 0
    private var declaredLength: Int64?
    private var hasTransferEncoding = false
    /// Whether the last field line was `Content-Length` or `Transfer-Encoding`, which may not be folded.
    private var lastFieldFramesBody = false

    /// A guard that accepts up to `limit` header bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// Whether a final head has been read completely.
    var hasFinalHead: Bool { phase == .trailers }

    /// Whether the final head's body, in answer to a `method` request, ends only when the
    /// connection closes (RFC 9112 §6.3): it declared neither a length nor a transfer coding, and
    /// the response has a body (``BodyPresence``).
    func bodyEndsAtClose(method: HTTPRequest.Method) -> Bool {
        hasFinalHead && declaredLength == nil && !hasTransferEncoding && BodyPresence.responseHasBody(method: method, status: status)
    }

    /// Inspects one line, line ending included.
    mutating func inspect(_ line: UnsafeRawBufferPointer) -> Verdict {
        receivedBytes += line.count
        guard receivedBytes <= limit else {
            return .reject(.headersTooLarge(limit: limit))
        }
        let content = Self.withoutLineEnding(line)
        guard !content.isEmpty else {
            lastLine = .blank
            return endOfHead()
        }
        guard phase == .head else {
            // Inside a head, a line starting with `HTTP/` is a (malformed) field line to curl, not
            // a new response: reading it as a status line would forget the head's Content-Length.
            if Self.startsWithStatusLinePrefix(content) {
                lastLine = .statusLine
                return startHead(content)
            }
            lastLine = .otherField
            return inspectField(content)
        }
        lastLine = .headField
        return inspectField(content)
    }

    /// A status line: its code is checked and a new head begins.
    private mutating func startHead(_ line: UnsafeRawBufferPointer) -> Verdict {
        guard let code = Self.statusCode(line) else {
            return .reject(.malformedStatusLine)
        }
        guard (100...599).contains(code) else {
            return .reject(.statusOutOfRange(code))
        }
        statusLines += 1
        phase = .head
        status = code
        declaredLength = nil
        hasTransferEncoding = false
        lastFieldFramesBody = false
        return .accept
    }

    /// The blank line: ends a head (or the trailers).
    private mutating func endOfHead() -> Verdict {
        guard phase == .head else { return .accept }
        if hasTransferEncoding, declaredLength != nil {
            return .reject(.lengthWithTransferEncoding)
        }
        guard status >= 200 else {
            phase = .awaitingStatus
            return .accept
        }
        phase = .trailers
        return .finalHeadEnded(status: status, declaredLength: declaredLength)
    }

    /// A field line (or a folded continuation line), not empty, line ending removed: one scan of
    /// the name up to its colon, one of the value.
    private mutating func inspectField(_ line: UnsafeRawBufferPointer) -> Verdict {
        let isFolded = line[0] == Self.space || line[0] == Self.tab
        var nameLength = 0
        if !isFolded {
            nameLength = Self.tokenLength(line)
            guard nameLength < line.count, line[nameLength] == Self.colon else {
                // The first byte that is not a token character is not the colon: the name is not
                // a token if a colon comes later, and the line has none otherwise.
                return Self.contains(Self.colon, in: line, from: nameLength)
                    ? .reject(.nameNotToken)
                    : .reject(.missingColon)
            }
            guard nameLength > 0 else { return .reject(.nameNotToken) }
        }
        let valueStart = isFolded ? 0 : nameLength + 1
        let value = UnsafeRawBufferPointer(rebasing: line[valueStart...])
        guard !Self.containsControlCharacter(value) else {
            return .reject(.controlCharacter)
        }
        if isFolded {
            return lastFieldFramesBody
                ? .reject(.foldedFraming)
                : .accept
        }
        let framing = Self.framingField(UnsafeRawBufferPointer(rebasing: line[..<nameLength]))
        lastFieldFramesBody = framing != nil
        guard phase == .head, let framing else { return .accept }
        switch framing {
        case .contentLength:
            return noteContentLength(value)
        case .transferEncoding:
            hasTransferEncoding = true
            return .accept
        }
    }

    /// A `Content-Length` value: one number, or a comma-separated list of equal numbers (spaces
    /// and tabs around each), equal to any earlier one.
    private mutating func noteContentLength(_ value: UnsafeRawBufferPointer) -> Verdict {
        var start = 0
        while start <= value.count {
            var end = start
            while end < value.count, value[end] != Self.comma { end += 1 }
            guard let length = Self.decimal(Self.trimmed(UnsafeRawBufferPointer(rebasing: value[start..<end]))) else {
                return .reject(.invalidContentLength)
            }
            if let declaredLength, declaredLength != length {
                return .reject(.conflictingContentLengths(declaredLength, length))
            }
            declaredLength = length
            start = end + 1
        }
        return .accept
    }
}
