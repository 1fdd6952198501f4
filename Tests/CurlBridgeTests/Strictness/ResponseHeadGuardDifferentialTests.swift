@testable import CurlBridge
import CurlBridgeTestServer
import HTTPTypes
import Testing

/// ``ResponseHeadGuard`` (one pass per line, bit sets and words) against ``ReferenceHeadGuard``,
/// the plain guard it replaced: the same verdict for every line, the same state after it, and the
/// same field lines recorded, on every one-byte change of typical lines and on heads mutated from
/// a fixed seed.
@Suite("ResponseHeadGuard against its reference")
struct ResponseHeadGuardDifferentialTests {
    /// Heads as servers send them, and the awkward ones: interim heads, a challenge answered,
    /// trailers, folding, lists of lengths.
    static let heads: [[String]] = [
        ["HTTP/1.1 200 OK\r\n", "Server: nginx/1.22.1\r\n", "Date: Sat, 05 Dec 2026 22:28:49 GMT\r\n",
         "Content-Type: application/octet-stream\r\n", "Content-Length: 100\r\n",
         "Last-Modified: Sat, 05 Dec 2026 20:00:00 GMT\r\n", "Connection: keep-alive\r\n", "ETag: \"6931a0c0-64\"\r\n",
         "Accept-Ranges: bytes\r\n", "\r\n"],
        ["HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 201 Created\r\n", "Content-Length: 0\r\n", "\r\n"],
        ["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "\r\n", "X-Trailer: 1\r\n", "\r\n"],
        ["HTTP/2 200 \r\n", "content-length: 2, 2\r\n", "x-a: a\tb \u{E9}\r\n", " folded\r\n", "\tmore\r\n", "\r\n"],
        ["HTTP/1.1 401 Unauthorized\r\n", "WWW-Authenticate: Basic realm=\"x\"\r\n", "Content-Length: 0\r\n", "\r\n",
         "HTTP/1.1 200 OK\r\n", "Content-Length: 3\r\n", "\r\n"],
        ["HTTP/1.0 204 No Content\n", "Set-Cookie: a=b; Path=/\n", "\n"],
        ["HTTP/1.1 200 OK\r\n", "!#$%&'*+-.^_`|~09azAZ: v\r\n", "Content-Length:7\r\n", "Transfer-Encoding: gzip\r\n", "\r\n"],
        ["HTTP/1.1 301 Moved\r\n", "Content-Length: 12\r\n", "Location: /a\r\n", "CONTENT-LENGTH:\t12 ,12\r\n", "\r\n"],
    ]

    /// Bytes that sit on the rules' edges: controls, separators, digits, the status prefix's letters,
    /// DEL and bytes above it.
    static let edgeBytes: [UInt8] = [
        0x00, 0x01, 0x08, 0x09, 0x0A, 0x0B, 0x0D, 0x1F, 0x20, 0x21, 0x22, 0x28, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x35, 0x39,
        0x3A, 0x3B, 0x40, 0x48, 0x50, 0x54, 0x5C, 0x5E, 0x60, 0x61, 0x7C, 0x7E, 0x7F, 0x80, 0x89, 0xA0, 0xC3, 0xFF,
    ]

    /// What differs when `lines` are fed to both guards and recorders, `nil` when nothing does;
    /// `verdicts` counts the last verdict's kind (a refusal by its reason, numbers left out).
    static func difference(_ lines: [[UInt8]], limit: Int, verdicts: inout [String: Int]) -> String? {
        var fast = ResponseHeadGuard(limit: limit)
        var reference = ReferenceHeadGuard(limit: limit)
        var recorder = ResponseHeadRecorder()
        var referenceRecorder = ReferenceHeadRecorder()
        for (index, line) in lines.enumerated() {
            let (verdict, expected) = line.withUnsafeBytes { bytes in
                let verdict = ReferenceHeadGuard.Verdict(fast.inspect(bytes))
                let expected = reference.inspect(bytes)
                if case .reject = verdict {} else {
                    recorder.take(bytes, as: fast.lastLine)
                    referenceRecorder.take(bytes)
                }
                return (verdict, expected)
            }
            guard verdict == expected else { return "line \(index): \(verdict), expected \(expected)" }
            guard fast.statusLines == reference.statusLines, fast.hasFinalHead == reference.hasFinalHead,
                  fast.receivedBytes == reference.receivedBytes,
                  fast.bodyEndsAtClose(method: .get) == reference.bodyEndsAtClose(method: .get)
            else { return "line \(index): the state differs" }
            if case .reject(_, let reason) = verdict {
                verdicts[String(reason.prefix { !$0.isNumber }), default: 0] += 1
                return nil
            }
            if index == lines.count - 1 { verdicts[verdict == .accept ? "accept" : "final head", default: 0] += 1 }
        }
        let fields = recorder.headerBlock().fields
        let expectedFields = referenceRecorder.block.fields
        return fields == expectedFields ? nil : "recorded \(fields), expected \(expectedFields)"
    }

    /// Every byte value at every offset of each line of each head (the lines before it fed as they are).
    ///
    /// Both tests here run for tens of seconds of CPU (a debug build on a loaded machine): on a
    /// thread of their own, so that they never hold one of Swift's cooperative threads (two on
    /// this machine) from the async tests that run beside them (InterleavingTests gives each
    /// schedule 20 s; with both of these on the pool, its async schedules could not start).
    @Test("every one-byte change of every line of the typical heads gets the reference's verdict")
    func everyByteAtEveryOffset() async {
        let problem = await onWorkerThread { () -> String? in
            var verdicts: [String: Int] = [:]
            for head in Self.heads {
                let lines = head.map { Array($0.utf8) }
                for (lineIndex, line) in lines.enumerated() {
                    for offset in line.indices {
                        for byte in UInt8.min...UInt8.max where byte != line[offset] {
                            var changed = lines
                            changed[lineIndex][offset] = byte
                            if let difference = Self.difference(changed, limit: 256 << 10, verdicts: &verdicts) {
                                return "\(byte) at \(offset) of \(String(decoding: line, as: UTF8.self).debugDescription): \(difference)"
                            }
                        }
                    }
                }
            }
            return nil
        }
        if let problem { Issue.record("\(problem)") }
    }

    /// Heads changed several times over (bytes replaced, inserted, deleted; digits changed; lines
    /// cut, dropped, repeated, folded or given a bare LF), some with caps small enough to be
    /// reached; a fixed seed.
    @Test("heads mutated from a fixed seed get the reference's verdicts, state and recorded fields")
    func mutatedHeads() async {
        let (problem, verdicts) = await onWorkerThread { () -> (String?, [String: Int]) in
            var random = SeededGenerator(seed: 0x3737)
            var verdicts: [String: Int] = [:]
            for round in 0..<20_000 {
                var lines = Self.heads.randomElement(using: &random)!.map { Array($0.utf8) }
                for _ in 0..<Int.random(in: 1...4, using: &random) { Self.mutate(&lines, using: &random) }
                let limit = [256 << 10, 256 << 10, 256 << 10, 60, 200].randomElement(using: &random)!
                if let difference = Self.difference(lines, limit: limit, verdicts: &verdicts) {
                    let shown = lines.map { String(decoding: $0, as: UTF8.self).debugDescription }
                    return ("round \(round), limit \(limit), \(shown): \(difference)", verdicts)
                }
            }
            return (nil, verdicts)
        }
        if let problem {
            Issue.record("\(problem)")
            return
        }
        // Every rule was reached, each many times: the mutations are not all refused alike.
        #expect(verdicts.count == 12, "\(verdicts)")
        #expect(verdicts.values.allSatisfy { $0 >= 50 }, "\(verdicts)")
    }

    /// One random change to `lines`.
    static func mutate(_ lines: inout [[UInt8]], using random: inout SeededGenerator) {
        guard !lines.isEmpty else { return }
        let lineIndex = Int.random(in: lines.indices, using: &random)
        let byte = Bool.random(using: &random) ? edgeBytes.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
        let offset = Int.random(in: 0...lines[lineIndex].count, using: &random)
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            if offset < lines[lineIndex].count { lines[lineIndex][offset] = byte }
        case 2:
            lines[lineIndex].insert(byte, at: offset)
        case 3:
            if offset < lines[lineIndex].count { lines[lineIndex].remove(at: offset) }
        case 4:
            lines[lineIndex].removeSubrange(offset...)
        case 5:
            lines.remove(at: lineIndex)
        case 6:
            lines.insert(lines[lineIndex], at: Int.random(in: 0...lines.count, using: &random))
        case 7:
            lines[lineIndex].insert(Bool.random(using: &random) ? ResponseHeadGuard.space : ResponseHeadGuard.tab, at: 0)
        case 8:
            // A digit changed: status codes out of range, lengths that disagree.
            let digits = lines[lineIndex].indices.filter { (0x30...0x39).contains(lines[lineIndex][$0]) }
            if let digit = digits.randomElement(using: &random) { lines[lineIndex][digit] = UInt8.random(in: 0x30...0x39, using: &random) }
        default:
            if lines[lineIndex].count >= 2, lines[lineIndex].suffix(2) == [0x0D, 0x0A] { lines[lineIndex].remove(at: lines[lineIndex].count - 2) }
        }
    }
}
