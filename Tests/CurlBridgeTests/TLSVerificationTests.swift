import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Server verification against real TLS listeners: which CAs are trusted, and each way a server's
/// certificate can be wrong refused with its own code and curl's text, before any request byte.
@Suite(.hangGuard) struct TLSVerificationTests {
    @Test(arguments: ClientStyle.allCases)
    func replacingTheSystemStoreTrustsTheGivenCA(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            let transport = try TLSFixture.transport(listener, tls: TLSFixture.trustingTestCA)
            let echo = try await style.send(.get("echo"), through: transport).get().echo()
            #expect(echo.path == "/echo")
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func addingToTheSystemStoreTrustsTheGivenCA(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            let transport = try TLSFixture.transport(listener, tls: TLSConfiguration(trustRoots: .systemAdding(Fixture.testCA)))
            let echo = try await style.send(.get("echo"), through: transport).get().echo()
            #expect(echo.path == "/echo")
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func theSystemStoreAloneDoesNotTrustThePrivateCA(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            let transport = try TLSFixture.transport(listener, tls: TLSConfiguration())
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == .certificateUntrusted)
            #expect(listener.applicationBytesReceived == 0)
        }
    }

    /// A certificate the test CA cannot vouch for, the code it must produce, and curl's text.
    struct Refusal: Sendable, CustomStringConvertible {
        let scenario: TLSScenario
        let code: RequestError.Code
        let curlText: String
        var description: String { "\(scenario)" }
    }

    static let refusals = [
        Refusal(scenario: .expired, code: .certificateExpired, curlText: "SSL certificate problem: certificate has expired"),
        Refusal(scenario: .wrongHost, code: .hostnameMismatch, curlText: "target host name '127.0.0.1'"),
        Refusal(scenario: .selfSigned, code: .certificateSelfSigned, curlText: "SSL certificate problem: self-signed certificate"),
        Refusal(
            scenario: .unknownAuthority, code: .certificateUntrusted,
            curlText: "SSL certificate problem: unable to get local issuer certificate"),
    ]

    @Test("Expired, wrong-host, self-signed and unknown-CA certificates are refused, each with its code and curl's text",
          arguments: ClientStyle.allCases, refusals)
    func aBadCertificateIsRefused(style: ClientStyle, refusal: Refusal) async throws {
        try await TLSFixture.withListener(refusal.scenario) { listener in
            let transport = try TLSFixture.transport(listener, tls: TLSFixture.trustingTestCA)
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == refusal.code)
            #expect(error.curlMessage?.contains(refusal.curlText) == true, "\(error.curlMessage ?? "")")
            #expect(listener.applicationBytesReceived == 0)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func theInsecureModeAcceptsAnyCertificate(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.selfSigned) { listener in
            let transport = try TLSFixture.transport(listener, tls: .insecureNoVerification)
            let echo = try await style.send(.get("echo"), through: transport).get().echo()
            #expect(echo.path == "/echo")
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func theMinimumTLSVersionIsEnforced(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.tls12Only) { listener in
            let byDefault = try TLSFixture.transport(listener, tls: TLSFixture.trustingTestCA)
            #expect(try await style.send(.get("echo"), through: byDefault).get().status == .ok)

            var strict = TLSFixture.trustingTestCA
            strict.minimumVersion = .tls1_3
            let refusing = try TLSFixture.transport(listener, tls: strict)
            let error = try #require(await style.send(.get("echo"), through: refusing).failure)
            #expect(error.code == .tlsHandshakeFailed)
            #expect(error.curlMessage?.contains("alert protocol version") == true)
        }
    }
}
