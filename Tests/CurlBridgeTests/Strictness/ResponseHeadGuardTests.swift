@testable import CurlBridge
import Testing

/// The header-line checks on their own, line by line, with no socket.
@Suite("ResponseHeadGuard")
struct ResponseHeadGuardTests {
    /// The verdicts for `lines` fed in order to a guard accepting `limit` bytes.
    private func verdicts(_ lines: [String], limit: Int = 256 << 10) -> [ResponseHeadGuard.Verdict] {
        var headGuard = ResponseHeadGuard(limit: limit)
        return lines.map { line in Array(line.utf8).withUnsafeBytes { headGuard.inspect($0) } }
    }

    /// The last verdict for `lines`.
    private func outcome(_ lines: [String], limit: Int = 256 << 10) -> ResponseHeadGuard.Verdict {
        verdicts(lines, limit: limit).last!
    }

    /// The code of a rejection, `nil` for anything else.
    private func rejection(_ lines: [String], limit: Int = 256 << 10) -> RequestError.Code? {
        guard case .reject(let rejection) = outcome(lines, limit: limit) else { return nil }
        return rejection.code
    }

    @Test("a plain head ends with its status and declared length")
    func plainHead() {
        #expect(outcome(["HTTP/1.1 200 OK\r\n", "Content-Length: 12\r\n", "\r\n"]) == .finalHeadEnded(status: 200, declaredLength: 12))
        #expect(outcome(["HTTP/2 204 \r\n", "\r\n"]) == .finalHeadEnded(status: 204, declaredLength: nil))
        #expect(outcome(["HTTP/1.1 200\r\n", "content-length:  7 \r\n", "\n"]) == .finalHeadEnded(status: 200, declaredLength: 7))
    }

    @Test("interim heads do not end the response; the final one does")
    func interimHeads() {
        let all = verdicts(["HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 201 Created\r\n", "Content-Length: 0\r\n", "\r\n"])
        #expect(all == [.accept, .accept, .accept, .accept, .finalHeadEnded(status: 201, declaredLength: 0)])
    }

    @Test("equal Content-Length values are one length; differing ones are refused")
    func contentLengthAgreement() {
        #expect(outcome(["HTTP/1.1 200 OK\r\n", "Content-Length: 5\r\n", "Content-Length: 5\r\n", "\r\n"])
            == .finalHeadEnded(status: 200, declaredLength: 5))
        #expect(outcome(["HTTP/1.1 200 OK\r\n", "Content-Length: 2, 2\r\n", "\r\n"]) == .finalHeadEnded(status: 200, declaredLength: 2))
        #expect(rejection(["HTTP/1.1 200 OK\r\n", "Content-Length: 5\r\n", "Content-Length: 12\r\n"]) == .protocolError)
        #expect(rejection(["HTTP/1.1 200 OK\r\n", "Content-Length: 5, 12\r\n"]) == .protocolError)
    }

    @Test("a Content-Length that is not a number, or overflows, is refused", arguments: [
        "99999999999999999999", "-1", "+5", "5x", "", "0x10", "1 2",
    ])
    func malformedContentLength(value: String) {
        #expect(rejection(["HTTP/1.1 200 OK\r\n", "Content-Length: \(value)\r\n"]) == .protocolError)
    }

    @Test("Content-Length with Transfer-Encoding is refused at the end of the head")
    func lengthWithTransferEncoding() {
        let all = verdicts(["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "Content-Length: 5\r\n", "\r\n"])
        #expect(all.dropLast().allSatisfy { $0 == .accept })
        guard case .reject(let rejection) = all.last! else { Issue.record("accepted"); return }
        #expect(rejection.code == .protocolError)
    }

    @Test("status lines that are not HTTP/<version> <3 digits> are refused", arguments: [
        "HTTP/1.1 OK 200\r\n", "HTTP/1.1 2000 OK\r\n", "HTTP/1.1 20 OK\r\n", "HTTP/1.1\r\n", "HTTP/1.1 600 Custom\r\n",
        "HTTP/1.1 099 Low\r\n", "HTTP/1.1 2a0 OK\r\n", "HTTP/21.1 301 Moved\r\n", "HTTP/ 200 OK\r\n", "HTTP/1.1.1 200 OK\r\n",
    ])
    func malformedStatusLine(line: String) {
        #expect(rejection([line]) == .protocolError)
    }

    @Test("control characters in a value and names that are not tokens are refused", arguments: [
        "X-A: a\rb\r\n", "X-A: a\u{0}b\r\n", "X-A: a\u{1}b\r\n", "X-A: a\u{7F}\r\n", "Content-Length : 5\r\n", ": empty\r\n",
        "No colon here\r\n", "X(A): 1\r\n",
    ])
    func malformedFieldLine(line: String) {
        #expect(rejection(["HTTP/1.1 200 OK\r\n", line]) == .protocolError)
    }

    /// The value scan reads eight bytes at a time: every byte value, at every offset of values
    /// long enough for whole words and a tail, with and without a tab elsewhere (which sends the
    /// scan through a word byte by byte), is judged as the byte-by-byte rule judges it.
    @Test("the word-at-a-time value scan agrees with the byte rule for every byte at every offset")
    func valueScanAgreesWithTheByteRule() {
        let isForbidden = { (byte: UInt8) in byte != UInt8(ascii: "\t") && (byte < 0x20 || byte == 0x7F) }
        for length in 1...19 {
            for offset in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    for tab in [nil, (offset + 3) % length] where tab != offset {
                        // Neighbours above 0x7F too, so that borrows across bytes are exercised.
                        var value = [UInt8](repeating: offset.isMultiple(of: 2) ? UInt8(ascii: "a") : 0xE9, count: length)
                        if let tab { value[tab] = UInt8(ascii: "\t") }
                        value[offset] = byte
                        let found = value.withUnsafeBytes { ResponseHeadGuard.containsControlCharacter($0) }
                        if found != isForbidden(byte) {
                            Issue.record("byte \(byte) at \(offset) of \(length), tab at \(tab.map(String.init) ?? "none"): scan says \(found)")
                            return
                        }
                    }
                }
            }
        }
    }

    @Test("tabs, obs-text and folded lines are accepted")
    func tolerated() {
        #expect(outcome(["HTTP/1.1 200 OK\r\n", "X-A: a\tb \u{E9}\r\n", " folded\r\n", "\r\n"])
            == .finalHeadEnded(status: 200, declaredLength: nil))
    }

    /// Found by fuzzing: a line starting with `HTTP/` inside a head restarted the checks, so a
    /// `Content-Length` before it and a different one after it were both accepted.
    @Test("a line starting with HTTP/ inside a head is a field line, not a new response")
    func statusLineInsideAHead() {
        #expect(rejection(["HTTP/1.1 200 OK\r\n", "Content-Length: 5\r\n", "HTTP/1.1 200 X: y\r\n"]) == .protocolError)
        #expect(rejection(["HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\n"]) == .protocolError)
    }

    @Test("a folded line may not continue Content-Length or Transfer-Encoding")
    func foldedFraming() {
        #expect(rejection(["HTTP/1.1 200 OK\r\n", "Content-Length: 5\r\n", " 12\r\n"]) == .protocolError)
        #expect(rejection(["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: gzip\r\n", "\tchunked\r\n"]) == .protocolError)
        #expect(outcome(["HTTP/1.1 200 OK\r\n", "Content-Length: 5\r\n", "X-A: a\r\n", " b\r\n", "\r\n"])
            == .finalHeadEnded(status: 200, declaredLength: 5))
    }

    @Test("header bytes past the cap are refused as headersTooLarge, trailers included")
    func cap() {
        #expect(rejection(["HTTP/1.1 200 OK\r\n", "X-A: \(String(repeating: "a", count: 100))\r\n"], limit: 64) == .headersTooLarge)
        let head = ["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "\r\n"]
        let used = head.reduce(0) { $0 + $1.utf8.count }
        #expect(rejection(head + ["X-Trailer: 1234567890\r\n"], limit: used + 10) == .headersTooLarge)
        #expect(outcome(head + ["X-Trailer: 12345\r\n"], limit: used + 20) == .accept)
    }

    @Test("a new status line after a final head starts another head (curl answering a challenge)")
    func secondHead() {
        let all = verdicts(["HTTP/1.1 401 Unauthorized\r\n", "Content-Length: 0\r\n", "\r\n",
                            "HTTP/1.1 200 OK\r\n", "Content-Length: 3\r\n", "\r\n"])
        #expect(all[2] == .finalHeadEnded(status: 401, declaredLength: 0))
        #expect(all[5] == .finalHeadEnded(status: 200, declaredLength: 3))
    }
}
