import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// One fault with its query, and what every verb must end with.
struct FaultCase: Sendable, CustomTestStringConvertible {
    var fault: Fault
    var parameters: [String: String] = [:]
    /// What `send` must end with.
    var expected: FaultOutcome
    /// What `stream` and `download` must end with, when it differs from `send`'s (they have no
    /// body cap).
    var expectedUnbuffered: FaultOutcome?
    /// Whether the case applies on the plaintext port, and on the TLS port.
    var plain = true
    var tls = true
    /// Configuration for the case (short timeouts, a small body cap).
    var configure: @Sendable (inout Configuration) -> Void = { _ in }

    var testDescription: String {
        ([fault.rawValue] + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }

    func expected(for verb: FaultRoute.Verb) -> FaultOutcome {
        verb == .send ? expected : expectedUnbuffered ?? expected
    }

    func applies(to route: FaultRoute) -> Bool {
        route.tls ? tls : plain
    }

    static let idle300ms: @Sendable (inout Configuration) -> Void = { $0.timeouts.idle = .milliseconds(300) }
    static let hundredBytes = Data(repeating: UInt8(ascii: "x"), count: 100)

    /// Every HTTP/1.1 fault whose outcome does not depend on the verb's consumer (the bombs and
    /// the endless body are in ``CompressionBombTests``; connection reuse in
    /// ``ConnectionReuseFaultTests``).
    static let catalogue: [FaultCase] = [
        FaultCase(fault: .closeBeforeResponse, parameters: ["mode": "fin"], expected: .failed(.connectionLost)),
        FaultCase(fault: .closeBeforeResponse, parameters: ["mode": "rst"], expected: .failed(.connectionLost)),
        FaultCase(fault: .closeMidBody, parameters: ["mode": "fin"], expected: .failed(.responseTruncated)),
        FaultCase(fault: .closeMidBody, parameters: ["mode": "rst"], expected: .failed(.responseTruncated)),
        // Without Content-Length the body ends at the close (RFC 9112 §6.3): after an orderly
        // close (and TLS's close_notify) the 100 bytes are the whole body.
        FaultCase(fault: .closeMidBody, parameters: ["mode": "fin", "length": "0"], expected: .succeeded(hundredBytes)),
        FaultCase(fault: .closeMidBody, parameters: ["mode": "rst", "length": "0"], expected: .failed(.responseTruncated)),
        FaultCase(fault: .closeMidChunk, parameters: ["mode": "fin"], expected: .failed(.responseTruncated)),
        FaultCase(fault: .closeMidChunk, parameters: ["mode": "rst"], expected: .failed(.responseTruncated)),
        FaultCase(fault: .truncatedChunked, expected: .failed(.responseTruncated)),
        FaultCase(fault: .badChunkSize, expected: .failed(.protocolError)),
        FaultCase(fault: .stallAfterHeaders, expected: .failed(.idleTimedOut), configure: idle300ms),
        // A byte per second against a 300 ms idle timeout: idle between bytes.
        FaultCase(fault: .drip, parameters: ["interval": "1000"], expected: .failed(.idleTimedOut), configure: idle300ms),
        // A byte every 20 ms never looks idle; the total timeout bounds it.
        FaultCase(fault: .drip, parameters: ["interval": "20", "bytes": "1000"], expected: .failed(.totalTimedOut)) {
            $0.timeouts.idle = .seconds(5)
            $0.timeouts.total = .seconds(3)
        },
        FaultCase(fault: .headerFlood, expected: .failed(.headersTooLarge)),
        FaultCase(fault: .hugeHeader, expected: .failed(.headersTooLarge)),
        FaultCase(fault: .conflictingContentLength, expected: .failed(.protocolError)),
        FaultCase(fault: .overflowingContentLength, expected: .failed(.protocolError)),
        FaultCase(fault: .contentLengthAndChunked, expected: .failed(.protocolError)),
        // Held in memory, 10 GB is refused at the head; a stream or download reads what comes.
        FaultCase(
            fault: .hugeContentLength, parameters: ["mode": "close"], expected: .failed(.bodyTooLarge),
            expectedUnbuffered: .failed(.responseTruncated)),
        FaultCase(fault: .garbageStatusLine, expected: .failed(.protocolError)),
        FaultCase(fault: .http09, expected: .failed(.protocolError)),
        FaultCase(fault: .status2000, expected: .failed(.protocolError)),
        FaultCase(fault: .bareCRInHeader, expected: .failed(.protocolError)),
        FaultCase(fault: .nulInHeader, expected: .failed(.protocolError)),
        // A bare LF ends a header line (RFC 9112 §2.2 lets a recipient take it as a line
        // terminator, and curl does): two headers, X-Fault "before" and X-Smuggled "after" —
        // never a value with a line break in it. Checked in HTTP1FaultTests.bareLineFeedEndsTheLine.
        FaultCase(fault: .bareLFInHeader, expected: .succeeded(Data("ok".utf8))),
        FaultCase(fault: .stackedEncodings, parameters: ["layers": "6"], expected: .failed(.protocolError)),
        FaultCase(fault: .stackedEncodings, parameters: ["layers": "5"], expected: .succeeded(Data("hello".utf8))),
        // TLS ended without close_notify and no length: the body may be cut, so it is not whole
        // (TLSCloseNotifyWatch: libcurl 7.88 alone takes the close for the body's end).
        FaultCase(fault: .uncleanTLSClose, expected: .failed(.responseTruncated), plain: false),
        // A body framed whole, then the same close: many servers close so, and nothing is lost.
        FaultCase(fault: .uncleanTLSClose, parameters: ["framing": "length"], expected: .succeeded(hundredBytes), plain: false),
        FaultCase(fault: .uncleanTLSClose, parameters: ["framing": "chunked"], expected: .succeeded(hundredBytes), plain: false),
    ]
}
