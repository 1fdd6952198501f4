@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// A handle whose transfer ended badly — cancelled mid-body, or refused for a protocol error — is
/// reused for the next request, which succeeds with exactly its own body.
@Suite(.hangGuard) struct HandleReuseFailureTests {
    @Test(arguments: ClientStyle.allCases, [false, true])
    func aRequestAfterOneCancelledMidBodyGetsTheWholeRightBody(style: ClientStyle, tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls) { $0.reusesEasyHandles = true }
        let stalled = Stalled(at: 300_000)
        let error = await style.sendCancelled(.get("resource/1000000?stall-after=300000"), at: stalled, through: transport)
        #expect(error?.code == .cancelled, "\(String(describing: error))")

        let b = try await transport.reusingAHandle { try await style.send(.get("resource/1000000?version=2"), through: transport).get() }
        #expect(b.status == .ok)
        expectSameBytes(b.body, resourceBytes(count: 1_000_000, version: 2))
    }

    /// Faults that end request A with an error of curl's protocol handling, or of ours at the head.
    static let faults: [FaultCase] = [
        FaultCase(fault: .badChunkSize, expected: .failed(.protocolError)),
        FaultCase(fault: .garbageStatusLine, expected: .failed(.protocolError)),
        FaultCase(fault: .conflictingContentLength, expected: .failed(.protocolError)),
        FaultCase(fault: .closeMidBody, parameters: ["mode": "rst"], expected: .failed(.responseTruncated)),
        FaultCase(fault: .hugeHeader, expected: .failed(.headersTooLarge)),
    ]

    @Test(arguments: ClientStyle.allCases, faults)
    func aRequestAfterAProtocolErrorSucceeds(style: ClientStyle, fault: FaultCase) async throws {
        let faultServer = try await FaultFixture.server()
        let server = try await Fixture.server()
        let (transport, _) = FaultFixture.transport { $0.reusesEasyHandles = true }
        let a = await style.send(.get(faultServer.url(fault.fault, key: FaultFixture.key(), fault.parameters)), through: transport)
        #expect(a.failure.map { FaultOutcome.failed($0.code) } == fault.expected, "\(a)")

        let resource = server.httpURL.absoluteString + "resource/300000"
        let b = try await transport.reusingAHandle { try await style.send(.get(resource), through: transport).get() }
        #expect(b.status == .ok)
        expectSameBytes(b.body, resourceBytes(count: 300_000))
        // And on the fault server itself, the next request is answered as it should be.
        let ok = try await transport.reusingAHandle {
            try await style.send(.get(faultServer.url(.ok, key: FaultFixture.key())), through: transport).get()
        }
        #expect(String(decoding: ok.body, as: UTF8.self) == "ok")
    }
}
