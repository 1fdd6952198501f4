@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The TLS configuration's values and how a transport turns them into curl's per-host options
/// (no sockets).
@Suite struct TLSConfigurationTests {
    static let key = Data(repeating: 7, count: 32).base64EncodedString()

    @Test func aCertificateBundleCountsItsCertificatesAndRefusesOtherText() throws {
        let two = try CertificateBundle(pem: TestServer.certificateAuthorityPEM + "\n" + TestServer.serverCertificatePEM)
        #expect(two.count == 2)
        #expect((two + Fixture.testCA).count == 3)
        #expect(throws: RequestError.self) { try CertificateBundle(pem: TestServer.clientPrivateKeyPEM) }
        #expect(throws: RequestError.self) { try CertificateBundle(pem: "-----BEGIN CERTIFICATE-----\nMIIB") }
    }

    @Test func aCertificateFileIsReadWhenTheBundleIsMade() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).pem")
        try Data(TestServer.certificateAuthorityPEM.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try CertificateBundle(pemFile: file) == Fixture.testCA)
        let missing = file.appendingPathExtension("missing")
        let error = #expect(throws: RequestError.self) { try CertificateBundle(pemFile: missing) }
        #expect(error?.code == .fileIO)
    }

    @Test func publicKeyPinsAreCheckedAndTakeCurlsForm() throws {
        let pinning = try Pinning.publicKeys([Self.key, "sha256//" + Self.key])
        #expect(pinning.publicKeyHashes == ["sha256//" + Self.key, "sha256//" + Self.key])
        #expect(throws: RequestError.self) { try Pinning.publicKeys([]) }
        #expect(throws: RequestError.self) { try Pinning.publicKeys(["sha256//c2hvcnQ="]) }
        #expect(throws: RequestError.self) { try Pinning.publicKeys(["not base64!"]) }
    }

    @Test func hostsFindTheirOwnPinsAndNoOthers() throws {
        var tls = TLSConfiguration()
        tls.pins = [
            "API.example.com": try .publicKeys([Self.key]),
            "*.example.com": .certificates(Fixture.testCA),
            "*.deep.example.com": try .publicKeys(["sha256//" + Data(repeating: 1, count: 32).base64EncodedString()]),
            "::1": try .publicKeys([Self.key]),
        ]
        let options = CurlTLSOptions(tls)
        #expect(options.policy(forHost: "api.example.com").pinnedPublicKeys == "sha256//" + Self.key)
        #expect(options.policy(forHost: "api.example.com.").pinnedPublicKeys == "sha256//" + Self.key)
        #expect(options.policy(forHost: "cdn.example.com").pinsCertificates)
        #expect(options.policy(forHost: "a.b.example.com").pinsCertificates)
        #expect(options.policy(forHost: "x.deep.example.com").pinnedPublicKeys?.contains("AQEB") == true)
        #expect(!options.policy(forHost: "example.com").pinsCertificates)  // a wildcard names subdomains only
        #expect(options.policy(forHost: "example.com").pinnedPublicKeys == nil)
        #expect(options.policy(forHost: "notexample.com").pinnedPublicKeys == nil)
        #expect(options.policy(forHost: "[::1]").pinnedPublicKeys != nil)
        #expect(options.policy(forHost: "localhost").pinnedPublicKeys == nil)
    }

    @Test func theHostIsTheOneCurlConnectsTo() throws {
        #expect(try CurlTLSOptions.host(of: "https://user:pw@API.example.com:8443/a?b#c") == "API.example.com")
        #expect(try CurlTLSOptions.host(of: "https://[::1]:8443/") == "[::1]")
        #expect(try CurlTLSOptions.host(of: "https://127.0.0.1/") == "127.0.0.1")
        #expect(try CurlTLSOptions.host(of: "https://0x7f.1:8443/") == "127.0.0.1")  // curl's own IPv4 normalization
        #expect(try CurlTLSOptions.host(of: "https://2130706433/") == "127.0.0.1")
    }

    @Test("International and non-canonical pin keys match the host curl connects to; an unconvertible name is refused, never unpinned")
    func pinKeysAreCanonicalLikeHosts() throws {
        var tls = TLSConfiguration()
        tls.pins = ["bücher.example": try .publicKeys([Self.key]), "0:0::1": try .publicKeys([Self.key])]
        let options = CurlTLSOptions(tls)
        #expect(options.policy(forHost: "xn--bcher-kva.example").pinnedPublicKeys != nil)
        #expect(options.policy(forHost: try CurlTLSOptions.host(of: "https://xn--bcher-kva.example/")).pinnedPublicKeys != nil)
        #expect(options.policy(forHost: try CurlTLSOptions.host(of: "https://[::1]/")).pinnedPublicKeys != nil)
        // The Unicode and percent-encoded spellings: curl connects to the xn-- name, or (in a
        // locale where it cannot convert) refuses; either way no unpinned lookup.
        for url in ["https://bücher.example/", "https://b%C3%BCcher.example/"] {
            if let host = try? CurlTLSOptions.host(of: url) {
                #expect(options.policy(forHost: host).pinnedPublicKeys != nil, "\(url) → \(host)")
            }
        }
    }

    @Test func trustRootsBecomeCurlsCAOptions() throws {
        let system = CurlTLSOptions(TLSConfiguration()).policy(forHost: "a")
        #expect(system.trustedCertificates == nil && !system.excludesSystemStore && system.verifiesPeer)
        #expect(system.caFile == SystemTrustStore.bundleFile)  // the CA file alone, which curl caches

        let replacing = CurlTLSOptions(TLSConfiguration(trustRoots: .replacingSystem(with: Fixture.testCA))).policy(forHost: "a")
        #expect(replacing.trustedCertificates?.count == TestServer.certificateAuthorityPEM.utf8.count)
        #expect(replacing.excludesSystemStore)  // curl's default CA file and directory are switched off

        let addingOptions = CurlTLSOptions(TLSConfiguration(trustRoots: .systemAdding(Fixture.testCA)))  // owns the file
        let adding = addingOptions.policy(forHost: "a")
        let systemBundle = SystemTrustStore.bundlePEM
        #expect(!systemBundle.isEmpty)
        // One sealed in-memory file with both (TLSTrustStoreCacheTests), not a blob curl parses
        // for every connection.
        let bundle = try #require(adding.caFile.flatMap { FileManager.default.contents(atPath: $0) })
        #expect(bundle.count == systemBundle.count + 1 + TestServer.certificateAuthorityPEM.utf8.count)
        #expect(adding.trustedCertificates == nil && !adding.excludesSystemStore)
        withExtendedLifetime(addingOptions) {}

        let insecure = CurlTLSOptions(.insecureNoVerification).policy(forHost: "a")
        #expect(!insecure.verifiesPeer)
    }

    @Test func certificatePinsAreTheOnlyAnchorsAndStayVerifiedInInsecureMode() throws {
        var tls = TLSConfiguration.insecureNoVerification
        tls.pins["pinned.example"] = .certificates(Fixture.testCA)
        let pinned = CurlTLSOptions(tls).policy(forHost: "pinned.example")
        #expect(pinned.pinsCertificates && pinned.excludesSystemStore && pinned.verifiesPeer)
        #expect(pinned.trustedCertificates?.count == TestServer.certificateAuthorityPEM.utf8.count)
    }

    @Test func aClientIdentityDescriptionShowsNoSecret() {
        let identity = ClientIdentity.pem(
            certificate: TestServer.clientCertificatePEM, privateKey: TestServer.clientPrivateKeyPEM, passphrase: "hunter2")
        #expect(!"\(identity)".contains("PRIVATE") && !"\(identity)".contains("hunter2"))
        #expect(!String(reflecting: TLSConfiguration(clientIdentity: identity)).contains("hunter2"))
    }
}
