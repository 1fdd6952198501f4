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

    @Test(arguments: ClientStyle.allCases)
    func anExpiredCertificateIsRefused(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.expired) { listener in
            let transport = try TLSFixture.transport(listener, tls: TLSFixture.trustingTestCA)
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == .certificateExpired)
            #expect(error.curlMessage == "SSL certificate problem: certificate has expired")
            #expect(listener.applicationBytesReceived == 0)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aCertificateForAnotherHostIsRefused(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.wrongHost) { listener in
            let transport = try TLSFixture.transport(listener, tls: TLSFixture.trustingTestCA)
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == .hostnameMismatch)
            #expect(error.curlMessage?.contains("target host name '127.0.0.1'") == true)
            #expect(listener.applicationBytesReceived == 0)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aSelfSignedCertificateIsRefused(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.selfSigned) { listener in
            let transport = try TLSFixture.transport(listener, tls: TLSFixture.trustingTestCA)
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == .certificateSelfSigned)
            #expect(error.curlMessage == "SSL certificate problem: self-signed certificate")
            #expect(listener.applicationBytesReceived == 0)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aCertificateFromAnUnknownCAIsRefused(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.unknownAuthority) { listener in
            let transport = try TLSFixture.transport(listener, tls: TLSFixture.trustingTestCA)
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == .certificateUntrusted)
            #expect(error.curlMessage == "SSL certificate problem: unable to get local issuer certificate")
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
