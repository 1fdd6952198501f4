@testable import CurlBridge
import Foundation
import Testing

/// `RequestError` keeps its fields in one shared box: it stays one word wide, copies stay
/// independent values, and the copies the library makes keep what it fills in afterwards.
@Suite struct RequestErrorStorageTests {
    private static let record = AttemptRecord(number: 1, outcome: .failure(.connectionLost), duration: .milliseconds(3))

    @Test("an error is one reference wide, so a Result carrying it is no larger than its response")
    func oneWord() {
        #expect(MemoryLayout<RequestError>.size == MemoryLayout<AnyObject>.size)
        #expect(MemoryLayout<Result<Response, RequestError>>.size <= MemoryLayout<Response>.size + 1)
    }

    @Test("changing a copy's attempts leaves the original as it was")
    func copiesAreValues() {
        let original = RequestError(.connectionLost, "reset", method: .get, url: "http://a.test/")
        var copy = original
        copy.attempts = [Self.record]
        copy.receivedResponseBytes = true
        #expect(original.attempts.isEmpty)
        #expect(!original.receivedResponseBytes)
        #expect(copy.attempts.map(\.number) == [1])
        #expect(copy.receivedResponseBytes)
        #expect(copy == original, "attempts are left out of equality, and the fields are shared")
    }

    @Test("attributed, with(response:) and resumable keep the attempts and the response-byte flag")
    func copiesKeepInternals() {
        var error = RequestError(.connectionLost, "reset")
        error.attempts = [Self.record]
        error.receivedResponseBytes = true
        let attributed = error.attributed(to: .post, url: "http://a.test/x")
        #expect(attributed.method == .post && attributed.url == "http://a.test/x")
        let named = attributed.attributed(to: .get, url: "http://b.test/")
        #expect(named.method == .post && named.url == "http://a.test/x", "a named error keeps its own names")
        let response = Response(
            status: .ok, headerFields: [:], body: Data(), url: "http://a.test/x", httpVersion: .http1_1,
            metrics: TransferMetrics(
                nameLookup: .zero, connect: .zero, tlsHandshake: .zero, preTransfer: .zero, firstByte: .zero, total: .zero,
                bytesSent: 0, bytesReceived: 0, headerBytes: 0, reusedConnection: false, localPort: 0, remoteAddress: "",
                remotePort: 0))
        for copy in [attributed, named, attributed.with(response: response), attributed.resumable(with: nil)] {
            #expect(copy.attempts.map(\.number) == [1])
            #expect(copy.receivedResponseBytes)
        }
        #expect(attributed.with(response: response).response == response)
    }

    @Test("dump shows the error's fields, not the box that stores them")
    func mirrorShowsFields() {
        var dumped = ""
        dump(RequestError(.idleTimedOut, "no byte for 5 s", url: "http://a.test/"), to: &dumped)
        #expect(dumped.contains("message: \"no byte for 5 s\""))
        #expect(dumped.contains("http://a.test/"))
        #expect(!dumped.contains("Storage"))
    }
}
