@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The system CA store is handed to curl as a file alone (no CA directory), and `systemAdding` as a
/// sealed in-memory file, so that curl parses each once per transport and caches the store. These
/// tests hold that a cached store trusts exactly what it did when parsed, on every new connection,
/// and never what another host's policy trusts.
@Suite(.hangGuard) struct TLSTrustStoreCacheTests {
    /// A TLS configuration with `trustRoots` whose system store is a file holding `pem`, removed
    /// after `body`.
    private static func withSystemBundle(
        holding pem: String, trustRoots: TrustRoots = .system, _ body: (TLSConfiguration) async throws -> Void
    ) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).pem").path
        try Data(pem.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var tls = TLSConfiguration(trustRoots: trustRoots)
        tls.systemBundleOverride = path
        try await body(tls)
    }

    @Test(arguments: ClientStyle.allCases)
    func aSystemBundleFileTrustsItsCAsOnEveryNewConnection(style: ClientStyle) async throws {
        try await Self.withSystemBundle(holding: TestServer.certificateAuthorityPEM) { tls in
            try await TLSFixture.withListener(.trusted) { listener in
                let transport = Transport(configuration: Configuration(tls: tls))
                // Two host names, two connections: the second verifies against the cached store.
                for host in ["127.0.0.1", "localhost", "127.0.0.1"] {
                    let url = try listener.url(host: host).appendingPathComponent("echo").absoluteString
                    #expect(try await style.send(.get(url), through: transport).get().status == .ok)
                }
                #expect(listener.connectionsAccepted == 2)
            }
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aSystemBundleWithoutTheCAKeepsRefusingIt(style: ClientStyle) async throws {
        try await Self.withSystemBundle(holding: TestServer.unknownCertificateAuthorityPEM) { tls in
            try await TLSFixture.withListener(.trusted) { listener in
                let transport = try TLSFixture.transport(listener, tls: tls)
                for _ in 0..<2 {
                    let error = try #require(await style.send(.get("echo"), through: transport).failure)
                    #expect(error.code == .certificateUntrusted)
                }
                #expect(listener.applicationBytesReceived == 0)
            }
        }
    }

    @Test("A host pinned to certificates and the system store, one transport, in either order",
          arguments: ClientStyle.allCases, [true, false])
    func theCachedSystemStoreAndAPinnedHostNeverLendEachOtherTrust(style: ClientStyle, pinnedFirst: Bool) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            // The system store (the machine's real one) does not know the test CA; `localhost`
            // trusts the test CA alone. Both names reach the same listener.
            var tls = TLSConfiguration()
            tls.pins["localhost"] = .certificates(Fixture.testCA)
            let transport = Transport(configuration: Configuration(tls: tls))
            let system = try listener.url(host: "127.0.0.1").appendingPathComponent("echo").absoluteString
            let pinned = try listener.url(host: "localhost").appendingPathComponent("echo").absoluteString
            let order = pinnedFirst ? [pinned, system, pinned, system] : [system, pinned, system, pinned]
            for url in order {
                let result = await style.send(.get(url), through: transport)
                if url == pinned {
                    #expect(try result.get().status == .ok)
                } else {
                    #expect(result.failure?.code == .certificateUntrusted)
                }
            }
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func addingToACachedSystemBundleTrustsBothOnEveryNewConnection(style: ClientStyle) async throws {
        // The test CA in the "system" bundle, the unknown-authority CA added: each listener is
        // trusted, and twice (the second connection to each uses the cached store).
        let added = TrustRoots.systemAdding(Fixture.certificates(TestServer.unknownCertificateAuthorityPEM))
        try await Self.withSystemBundle(holding: TestServer.certificateAuthorityPEM, trustRoots: added) { tls in
            let transport = Transport(configuration: Configuration(tls: tls))
            try await TLSFixture.withListener(.trusted) { trusted in
                try await TLSFixture.withListener(.unknownAuthority) { added in
                    for listener in [trusted, added, trusted, added] {
                        for host in ["127.0.0.1", "localhost"] {
                            let url = try listener.url(host: host).appendingPathComponent("echo").absoluteString
                            #expect(try await style.send(.get(url), through: transport).get().status == .ok)
                        }
                    }
                }
            }
        }
    }

    @Test func theSystemStoreIsTheBundleFileAlone() throws {
        let options = CurlTLSOptions(TLSConfiguration())
        let policy = options.policy(forHost: "example.com")
        #expect(policy.caFile == SystemTrustStore.bundleFile)
        #expect(policy.trustedCertificates == nil)
        #expect(!policy.excludesSystemStore)
    }

    @Test func addedCAsLiveInASealedInMemoryFile() throws {
        let added = Fixture.certificates(TestServer.unknownCertificateAuthorityPEM)
        let options = CurlTLSOptions(TLSConfiguration(trustRoots: .systemAdding(added)))
        let path = try #require(options.policy(forHost: "example.com").caFile)
        #expect(path.hasPrefix("/proc/self/fd/"))
        let contents = try #require(FileManager.default.contents(atPath: path))
        #expect(contents.starts(with: SystemTrustStore.bundlePEM))
        #expect(String(decoding: contents, as: UTF8.self).hasSuffix(added.pem))
        // Sealed: a write through a descriptor opened for writing is refused, and so is a change
        // of size, so no one can add a CA after the fact.
        let descriptor = open(path, O_WRONLY | O_APPEND)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(write(descriptor, "x", 1) == -1 && errno == EPERM)
        #expect(ftruncate(descriptor, 0) == -1 && errno == EPERM)
        #expect(FileManager.default.contents(atPath: path) == contents)
        withExtendedLifetime(options) {}  // the options own the file
    }

    @Test func aBundleFileMustBeAReadableNonEmptyFile() throws {
        try FileManager.default.createDirectory(atPath: NSTemporaryDirectory(), withIntermediateDirectories: true)
        let empty = NSTemporaryDirectory() + "empty-\(UUID().uuidString).pem"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(SystemTrustStore.bundleFileIfUsable(empty) == nil)
        #expect(SystemTrustStore.bundleFileIfUsable(NSTemporaryDirectory()) == nil)
        #expect(SystemTrustStore.bundleFileIfUsable("/nonexistent/ca.pem") == nil)
    }
}
