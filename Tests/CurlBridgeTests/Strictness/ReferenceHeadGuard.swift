@testable import CurlBridge
import HTTPTypes

/// The oracle of `ResponseHeadGuardDifferentialTests`: ``ResponseHeadGuard`` as it was before its
/// one-pass rewrite (7603acc) — slices, a colon search, then a token scan, then the value scan —
/// written plainly and kept unchanged, so that the fast guard can be held to its verdicts.
struct ReferenceHeadGuard {
    /// Its verdicts, of its own type: a refusal carries its code and message as the guard's did
    /// then, so that the fast guard's ``ResponseHeadGuard/Rejection`` is held to the same words.
    enum Verdict: Equatable {
        /// Nothing to act on.
        case accept
        /// The line ended a final head, which declared this body length, if any.
        case finalHeadEnded(status: Int, declaredLength: Int64?)
        /// The response must be refused with this code and message.
        case reject(RequestError.Code, String)

        /// The fast guard's `verdict`, in these terms.
        init(_ verdict: ResponseHeadGuard.Verdict) {
            switch verdict {
            case .accept: self = .accept
            case .finalHeadEnded(let status, let declaredLength): self = .finalHeadEnded(status: status, declaredLength: declaredLength)
            case .reject(let rejection): self = .reject(rejection.code, rejection.reason)
            }
        }
    }

    /// Before a status line, inside a head, or after a final head (trailers).
    private enum Phase { case awaitingStatus, head, trailers }

    let limit: Int
    private(set) var receivedBytes = 0, statusLines = 0
    private var phase = Phase.awaitingStatus, status = 0, declaredLength: Int64?
    private var hasTransferEncoding = false, lastFieldFramesBody = false

    init(limit: Int) { self.limit = limit }

    var hasFinalHead: Bool { phase == .trailers }

    /// Whether the final head's body ends at the close, for a `method` request.
    func bodyEndsAtClose(method: HTTPRequest.Method) -> Bool {
        guard hasFinalHead, declaredLength == nil, !hasTransferEncoding else { return false }
        return BodyPresence.responseHasBody(method: method, status: status)
    }

    /// Inspects one line, line ending included: the blank line, a status line outside a head,
    /// or a field line.
    mutating func inspect(_ line: UnsafeRawBufferPointer) -> Verdict {
        receivedBytes += line.count
        if receivedBytes > limit { return .reject(.headersTooLarge, "the response's headers exceed the cap of \(limit) bytes") }
        let content = Self.withoutLineEnding(line)
        switch (content.isEmpty, phase) {
        case (true, .head):
            if hasTransferEncoding && declaredLength != nil {
                return .reject(.protocolError, "the response declares both Content-Length and Transfer-Encoding")
            }
            phase = status < 200 ? .awaitingStatus : .trailers
            return status < 200 ? .accept : .finalHeadEnded(status: status, declaredLength: declaredLength)
        case (true, _):
            return .accept
        case (false, .head):
            return inspectField(content)
        case (false, _):
            guard Self.startsWithStatusLinePrefix(content) else { return inspectField(content) }
            guard let code = Self.statusCode(content) else { return .reject(.protocolError, "the response's status line is malformed") }
            if code < 100 || code > 599 { return .reject(.protocolError, "the response's status code \(code) is outside 100...599") }
            statusLines += 1
            (phase, status, declaredLength, hasTransferEncoding, lastFieldFramesBody) = (.head, code, nil, false, false)
            return .accept
        }
    }

    /// A field line (or a folded continuation line).
    private mutating func inspectField(_ slice: UnsafeRawBufferPointer.SubSequence) -> Verdict {
        let line = UnsafeRawBufferPointer(rebasing: slice)
        let isFolded = line[0] == Self.space || line[0] == Self.tab
        var valueStart = 0
        if !isFolded {
            var colon = 0
            while colon < line.count, line[colon] != Self.colon { colon += 1 }
            guard colon < line.count else { return .reject(.protocolError, "a response header line has no colon") }
            var index = 0
            while index < colon, Self.isTokenCharacter(line[index]) { index += 1 }
            guard colon > 0, index == colon else {
                return .reject(.protocolError, "a response header name is not a valid token")
            }
            valueStart = colon + 1
        }
        guard !Self.containsControlCharacter(UnsafeRawBufferPointer(rebasing: line[valueStart...])) else {
            return .reject(.protocolError, "a response header value contains a control character (CR, LF, NUL or another)")
        }
        if isFolded {
            return lastFieldFramesBody
                ? .reject(.protocolError, "a folded line continues the response's Content-Length or Transfer-Encoding")
                : .accept
        }
        let name = slice[slice.startIndex..<(slice.startIndex + valueStart - 1)]
        let isLength = ASCIIBytes.equals(UnsafeRawBufferPointer(rebasing: name), "content-length")
        let isTransferEncoding = ASCIIBytes.equals(UnsafeRawBufferPointer(rebasing: name), "transfer-encoding")
        lastFieldFramesBody = isLength || isTransferEncoding
        guard phase == .head else { return .accept }
        if isLength { return noteContentLength(slice[(slice.startIndex + valueStart)...]) }
        if isTransferEncoding { hasTransferEncoding = true }
        return .accept
    }

    /// A `Content-Length` value: one number, or a list of equal numbers, equal to any earlier one.
    private mutating func noteContentLength(_ value: UnsafeRawBufferPointer.SubSequence) -> Verdict {
        for element in value.split(separator: Self.comma, omittingEmptySubsequences: false) {
            guard let length = Self.decimal(Self.trimmed(element)) else {
                return .reject(.protocolError, "the response's Content-Length is not a number or overflows")
            }
            if let declaredLength, declaredLength != length {
                return .reject(.protocolError, "the response declares conflicting Content-Length values \(declaredLength) and \(length)")
            }
            declaredLength = length
        }
        return .accept
    }
}

extension ReferenceHeadGuard {
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let colon = UInt8(ascii: ":")
    private static let comma = UInt8(ascii: ",")

    private static let statusLinePrefix: StaticString = "HTTP/"

    /// Whether `line` starts with `HTTP/`, in capitals: how curl's header lines show a status
    /// line (the guard, the recorder and the transfer's challenge hold all ask this).
    static func startsWithStatusLinePrefix(_ line: UnsafeRawBufferPointer.SubSequence) -> Bool {
        guard line.count >= statusLinePrefix.utf8CodeUnitCount else { return false }
        for offset in 0..<statusLinePrefix.utf8CodeUnitCount where line[line.startIndex + offset] != statusLinePrefix.utf8Start[offset] {
            return false
        }
        return true
    }

    /// The line without its final CRLF or LF.
    static func withoutLineEnding(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer.SubSequence {
        var end = line.endIndex
        if end > line.startIndex, line[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > line.startIndex, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return line[line.startIndex..<end]
    }

    /// The code of `HTTP/<digit>[.<digit>] <3 digits>[ <reason>]`, or `nil` if the line is not
    /// that (curl reads `HTTP/21.1 301` as status 1).
    private static func statusCode(_ line: UnsafeRawBufferPointer.SubSequence) -> Int? {
        guard let space = line.firstIndex(of: Self.space) else { return nil }
        let version = Array(line[(line.startIndex + statusLinePrefix.utf8CodeUnitCount)..<space])
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        guard (version.count == 1 && isDigit(version[0]))
            || (version.count == 3 && isDigit(version[0]) && version[1] == UInt8(ascii: ".") && isDigit(version[2]))
        else { return nil }
        let digits = line[(space + 1)...].prefix { $0 != Self.space }
        guard digits.count == 3, let code = decimal(digits) else { return nil }
        return Int(code)
    }

    /// A non-empty run of ASCII digits as a number, `nil` if it is not one or overflows `Int64`.
    private static func decimal(_ digits: UnsafeRawBufferPointer.SubSequence) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = sum
        }
        return value
    }

    /// Whether `value` holds a byte a field value may not, byte by byte.
    static func containsControlCharacter(_ value: UnsafeRawBufferPointer) -> Bool {
        value.contains(where: isForbiddenInValue)
    }

    /// Whether a field value may not hold `byte`: a control character other than a horizontal
    /// tab, or DEL.
    private static func isForbiddenInValue(_ byte: UInt8) -> Bool {
        byte != Self.tab && (byte < 0x20 || byte == 0x7F)
    }

    /// `bytes` without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: UnsafeRawBufferPointer.SubSequence) -> UnsafeRawBufferPointer.SubSequence {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, bytes[start] == Self.space || bytes[start] == Self.tab { start += 1 }
        while end > start, bytes[end - 1] == Self.space || bytes[end - 1] == Self.tab { end -= 1 }
        return bytes[start..<end]
    }

    /// RFC 9110 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

/// The oracle for ``ResponseHeadRecorder``: the field lines of the latest head, as the recorder
/// picked them before the guard told it what each line was — by its own look at the line.
struct ReferenceHeadRecorder {
    /// The field lines of the latest head so far.
    private(set) var lines: [UInt8] = []
    /// Whether the next lines belong to a head.
    private var isInHead = false

    /// Takes one accepted line, line ending included.
    mutating func take(_ line: UnsafeRawBufferPointer) {
        let content = ReferenceHeadGuard.withoutLineEnding(line)
        guard !content.isEmpty else {
            isInHead = false
            return
        }
        if !isInHead {
            if ReferenceHeadGuard.startsWithStatusLinePrefix(content) {
                lines.removeAll()
                isInHead = true
            }
            return
        }
        lines.append(contentsOf: line)
    }

    /// A header block of the lines so far, whose fields the recorder's must equal.
    var block: ResponseHeaderBlock {
        let storage = ResponseHeaderBlock.Storage.make(capacity: lines.count)
        let appended = lines.withUnsafeBytes { storage.append($0) }
        precondition(appended, "a header block made for its lines has room for them")
        return ResponseHeaderBlock(sealed: storage)
    }
}
