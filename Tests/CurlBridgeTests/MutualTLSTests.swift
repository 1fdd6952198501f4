import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Client certificates against a listener that requires one signed by the test CA.
@Suite(.hangGuard) struct MutualTLSTests {
    /// Trust in the test CA, presenting `identity`.
    static func tls(presenting identity: ClientIdentity?) -> TLSConfiguration {
        var tls = TLSFixture.trustingTestCA
        tls.clientIdentity = identity
        return tls
    }

    @Test(arguments: ClientStyle.allCases)
    func aPEMClientCertificateIsAccepted(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.mutualTLS) { listener in
            let identity = ClientIdentity.pem(certificate: TestServer.clientCertificatePEM, privateKey: TestServer.clientPrivateKeyPEM)
            let transport = try TLSFixture.transport(listener, tls: Self.tls(presenting: identity))
            #expect(try await style.send(.get("echo"), through: transport).get().status == .ok)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aPKCS12ClientCertificateIsAccepted(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.mutualTLS) { listener in
            let identity = ClientIdentity.pkcs12(TestServer.clientPKCS12, passphrase: TestServer.clientPKCS12Passphrase)
            let transport = try TLSFixture.transport(listener, tls: Self.tls(presenting: identity))
            #expect(try await style.send(.get("echo"), through: transport).get().status == .ok)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func noClientCertificateIsRefused(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.mutualTLS) { listener in
            let transport = try TLSFixture.transport(listener, tls: Self.tls(presenting: nil))
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == .clientCertificateRejected)
            #expect(listener.applicationBytesReceived == 0)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aClientCertificateFromAnUnknownCAIsRefused(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.mutualTLS) { listener in
            let identity = ClientIdentity.pem(certificate: TestServer.strangerCertificatePEM, privateKey: TestServer.strangerPrivateKeyPEM)
            let transport = try TLSFixture.transport(listener, tls: Self.tls(presenting: identity))
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == .clientCertificateRejected)
            #expect(listener.applicationBytesReceived == 0)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aWrongPKCS12PassphraseIsATLSFailureWithCurlsText(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.mutualTLS) { listener in
            let identity = ClientIdentity.pkcs12(TestServer.clientPKCS12, passphrase: "wrong")
            let transport = try TLSFixture.transport(listener, tls: Self.tls(presenting: identity))
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == .tlsFailure)
            #expect(error.curlMessage?.contains("PKCS12") == true)
            #expect(listener.applicationBytesReceived == 0)
        }
    }
}
