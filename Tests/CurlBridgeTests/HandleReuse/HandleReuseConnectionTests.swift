@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// A reused easy handle carries no proxy, trust anchor, pin or timeout of the request it served
/// before: those that depend on the request's URL (a bypassed host, a pinned host) are set again
/// for each request, and a per-request timeout ends with its request.
@Suite(.hangGuard) struct HandleReuseConnectionTests {
    static let proxyUser = "reuse-proxy-user", proxyPassword = "reuse-proxy-secret"

    @Test(arguments: ClientStyle.allCases)
    func aBypassedHostIsReachedDirectlyAfterAProxiedRequest(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start(credentials: (Self.proxyUser, Self.proxyPassword))
        let credentials = ProxyServer.Credentials(user: Self.proxyUser, password: Self.proxyPassword)
        let transport = Fixture.transport(server) {
            $0.reusesEasyHandles = true
            $0.proxy = .through(.http(host: "127.0.0.1", port: proxy.httpPort, credentials: credentials), bypassing: ["localhost"])
        }
        _ = try await style.send(.get("echo/proxied"), through: transport).get()
        #expect(proxy.records.count == 1 && proxy.records.first?.accepted == true)

        let direct = try await transport.reusingAHandle {
            try await style.send(.get("http://localhost:\(server.httpPort)/echo/direct"), through: transport).get().echo()
        }
        #expect(direct.path == "/echo/direct")
        #expect(proxy.records.count == 1, "the bypassed request went through the proxy")
        #expect(direct.header("Proxy-Authorization").isEmpty)
        #expect(!direct.headers.flatMap { $0 }.joined().contains(Self.proxyPassword))

        // And the proxy is used again for the next request that should take it.
        _ = try await transport.reusingAHandle { try await style.send(.get("echo/proxied-again"), through: transport).get() }
        #expect(proxy.records.count == 2)
        #expect(proxy.records.last?.target.hasSuffix("/echo/proxied-again") == true)
        try await proxy.shutdown()
    }

    /// A request's own `Proxy-Authorization` goes to the proxy with that request only
    /// (`CURLOPT_PROXYHEADER`).
    @Test(arguments: ClientStyle.allCases)
    func aRequestsProxyHeaderIsNotSentWithTheNext(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start()
        let transport = Fixture.transport(server) {
            $0.reusesEasyHandles = true
            $0.proxy = .through(.http(host: "127.0.0.1", port: proxy.httpPort), bypassing: ["localhost"])
        }
        let first = Request.get("echo").header("Proxy-Authorization", "Bearer canary-proxy")
        _ = try await style.send(first, through: transport).get()
        #expect(proxy.records.last?.header("Proxy-Authorization") == ["Bearer canary-proxy"])

        _ = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get() }
        #expect(proxy.records.count == 2)
        #expect(proxy.records.last?.header("Proxy-Authorization").isEmpty == true)
        let direct = try await transport.reusingAHandle {
            try await style.send(.get("http://localhost:\(server.httpPort)/echo"), through: transport).get().echo()
        }
        #expect(direct.header("Proxy-Authorization").isEmpty)
        try await proxy.shutdown()
    }

    /// `localhost` is pinned to the CA that signed the listener's certificate, which the transport
    /// does not otherwise trust: after a success there, `127.0.0.1` on the same listener must be
    /// verified against the trust roots alone, and refused (`CURLOPT_CAINFO_BLOB` was A's).
    @Test(arguments: ClientStyle.allCases)
    func aPinnedCertificateOfOneHostDoesNotVouchForTheNext(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.unknownAuthority) { listener in
            let pinned = Pinning.certificates(Fixture.certificates(TestServer.unknownCertificateAuthorityPEM))
            let transport = Transport(configuration: Configuration(tls: TLSFixture.trustingTestCA(pinning: pinned, for: "localhost")).reusingEasyHandles())
            let pinnedURL = try listener.url(host: "localhost").appendingPathComponent("echo").absoluteString
            let unpinnedURL = try listener.url(host: "127.0.0.1").appendingPathComponent("echo").absoluteString

            #expect(try await style.send(.get(pinnedURL), through: transport).get().status == .ok)
            let error = await transport.reusingAHandle { await style.send(.post(unpinnedURL).body("secret"), through: transport).failure }
            #expect(error?.code == .certificateUntrusted, "\(String(describing: error))")
            #expect(listener.applicationBytesByConnection.last == 0)
            // The pinned host still works on a handle that last served a failure.
            #expect(try await transport.reusingAHandle { try await style.send(.get(pinnedURL), through: transport).get().status } == .ok)
        }
    }

    /// `localhost` is pinned to the trusted listener's key; `127.0.0.1` of another listener (its
    /// CA trusted too, its key another) must not be held to that pin (`CURLOPT_PINNEDPUBLICKEY`).
    @Test(arguments: ClientStyle.allCases)
    func aPublicKeyPinOfOneHostIsNotCheckedForTheNext(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { trusted in
            try await TLSFixture.withListener(.unknownAuthority) { other in
                let bothCAs = Fixture.certificates(TestServer.certificateAuthorityPEM + "\n" + TestServer.unknownCertificateAuthorityPEM)
                var tls = TLSConfiguration(trustRoots: .replacingSystem(with: bothCAs))
                tls.pins["localhost"] = try .publicKeys([TestServer.serverPublicKeyPin])
                let transport = Transport(configuration: Configuration(tls: tls).reusingEasyHandles())

                let pinnedURL = try trusted.url(host: "localhost").appendingPathComponent("echo").absoluteString
                #expect(try await style.send(.get(pinnedURL), through: transport).get().status == .ok)
                let unpinnedURL = try other.url(host: "127.0.0.1").appendingPathComponent("echo").absoluteString
                let unpinned = try await transport.reusingAHandle { try await style.send(.get(unpinnedURL), through: transport).get() }
                #expect(unpinned.status == .ok)
                // The pin still binds its own host, on the other listener too.
                let mismatched = try other.url(host: "localhost").appendingPathComponent("echo").absoluteString
                let error = await transport.reusingAHandle { await style.send(.get(mismatched), through: transport).failure }
                #expect(error?.code == .pinningMismatch, "\(String(describing: error))")
            }
        }
    }

    /// A host pinned to a key the server does not have fails every time, whatever the handle
    /// served before: a success on an unpinned host, or the same failure.
    @Test(arguments: ClientStyle.allCases)
    func aMismatchedPinFailsEveryTimeEvenAfterASuccessElsewhere(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            let tls = TLSFixture.trustingTestCA(pinning: try .publicKeys([TestServer.unknownAuthorityServerPublicKeyPin]), for: "localhost")
            let transport = Transport(configuration: Configuration(tls: tls).reusingEasyHandles())
            let unpinned = try listener.url(host: "127.0.0.1").appendingPathComponent("echo").absoluteString
            let pinned = try listener.url(host: "localhost").appendingPathComponent("echo").absoluteString

            #expect(try await style.send(.get(unpinned), through: transport).get().status == .ok)
            for _ in 0..<2 {
                let error = await transport.reusingAHandle { await style.send(.post(pinned).body("secret"), through: transport).failure }
                #expect(error?.code == .pinningMismatch, "\(String(describing: error))")
                #expect(listener.applicationBytesByConnection.last == 0)
            }
            #expect(try await transport.reusingAHandle { try await style.send(.get(unpinned), through: transport).get().status } == .ok)
        }
    }

    /// A plain `http` request sets no TLS option, as it makes no TLS connection: the `https`
    /// request after it, on the same handle and the same host name, is still held to the pin every
    /// host has (`*`, a key the server does not have), and refused before it sends a byte — on a
    /// fresh handle too, and whether its URL spells `HTTPS` or is resolved against a base URL.
    @Test(arguments: ClientStyle.allCases)
    func aPinBindsTheHTTPSRequestAfterAPlainOne(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        try await TLSFixture.withListener(.trusted) { listener in
            let tls = TLSFixture.trustingTestCA(pinning: try .publicKeys([TestServer.unknownAuthorityServerPublicKeyPin]), for: "*")
            let transport = Transport(configuration: Configuration(tls: tls).reusingEasyHandles())
            let plain = "http://localhost:\(server.httpPort)/echo"
            let pinned = try listener.url(host: "localhost").appendingPathComponent("echo").absoluteString

            #expect(try await style.send(.get(plain), through: transport).get().status == .ok)
            let error = await transport.reusingAHandle { await style.send(.post(pinned).body("secret"), through: transport).failure }
            #expect(error?.code == .pinningMismatch, "\(String(describing: error))")
            #expect(listener.applicationBytesByConnection.last == 0)
            // And on a fresh handle, as every transfer gets on libcurl before 8.1 by default.
            let fresh = Transport(configuration: Configuration(tls: tls))
            #expect(try await style.send(.get(plain), through: fresh).get().status == .ok)
            #expect(await style.send(.get(pinned), through: fresh).failure?.code == .pinningMismatch)
            // However the URL names its scheme: in capitals, or resolved against an https base URL.
            let shouted = pinned.replacingOccurrences(of: "https://", with: "HTTPS://")
            #expect(await style.send(.get(shouted), through: fresh).failure?.code == .pinningMismatch)
            var based = Configuration(tls: tls)
            based.baseURL = try listener.url(host: "localhost")
            let relative = Transport(configuration: based)
            #expect(await style.send(.get("echo"), through: relative).failure?.code == .pinningMismatch)
            #expect(listener.applicationBytesByConnection.allSatisfy { $0 == 0 })
        }
    }

    /// A has a 3 s total timeout (`CURLOPT_TIMEOUT_MS`); B, without one, waits 5 s for its answer
    /// and gets it.
    @Test(arguments: ClientStyle.allCases)
    func aPerRequestTotalTimeoutDoesNotOutliveItsRequest(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        // A's own outcome does not matter (on a loaded machine its short limit may run out): what
        // matters is that B, on A's handle, is not held to it.
        _ = await style.send(.get("echo").timeout(total: .seconds(3)), through: transport)
        let slow = await transport.reusingAHandle { await style.send(.get("delay/5000"), through: transport) }
        #expect(try slow.get().status == .ok, "\(String(describing: slow.failure))")
    }

    /// The same with A's 2 s idle timeout (the loop's, which reads the handle's connection time):
    /// B, silent for 4 s under the transport's 60 s, is answered.
    @Test(arguments: ClientStyle.allCases)
    func aPerRequestIdleTimeoutDoesNotOutliveItsRequest(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        _ = await style.send(.get("echo").timeout(idle: .seconds(2)), through: transport)  // its outcome does not matter (above)
        let slow = await transport.reusingAHandle { await style.send(.get("delay/4000"), through: transport) }
        #expect(try slow.get().status == .ok, "\(String(describing: slow.failure))")
    }
}
