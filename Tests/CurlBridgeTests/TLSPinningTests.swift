import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Public-key and certificate pinning against real TLS listeners: matches pass, mismatches fail
/// with `pinningMismatch` before the server receives a byte of the request, and a host's pins
/// bind that host only.
@Suite(.hangGuard) struct TLSPinningTests {
    /// A pin of a key the trusted server does not have.
    static let otherKeyPin = TestServer.unknownAuthorityServerPublicKeyPin

    @Test(arguments: ClientStyle.allCases)
    func aMatchingPublicKeyPinIsAccepted(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            let tls = TLSFixture.trustingTestCA(pinning: try .publicKeys([TestServer.serverPublicKeyPin]))
            let transport = try TLSFixture.transport(listener, tls: tls)
            #expect(try await style.send(.get("echo"), through: transport).get().status == .ok)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aMismatchedPublicKeyPinIsRefusedBeforeTheRequestIsSent(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            let tls = TLSFixture.trustingTestCA(pinning: try .publicKeys([Self.otherKeyPin]))
            let transport = try TLSFixture.transport(listener, tls: tls)
            let error = try #require(await style.send(.post("echo").body("secret"), through: transport).failure)
            #expect(error.code == .pinningMismatch)
            #expect(error.curlMessage == "SSL: public key does not match pinned public key")
            #expect(listener.connectionsAccepted >= 1)  // the handshake happened …
            #expect(listener.applicationBytesReceived == 0)  // … and not one request byte followed
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aBackupPublicKeyPinIsAccepted(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            let tls = TLSFixture.trustingTestCA(pinning: try .publicKeys([Self.otherKeyPin, TestServer.serverPublicKeyPin]))
            let transport = try TLSFixture.transport(listener, tls: tls)
            #expect(try await style.send(.get("echo"), through: transport).get().status == .ok)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aPinnedKeyKeepsAnUnverifiedServerSafe(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.unknownAuthority) { listener in
            var tls = TLSConfiguration.insecureNoVerification
            tls.pins["127.0.0.1"] = try .publicKeys([TestServer.unknownAuthorityServerPublicKeyPin])
            let transport = try TLSFixture.transport(listener, tls: tls)
            #expect(try await style.send(.get("echo"), through: transport).get().status == .ok)

            tls.pins["127.0.0.1"] = try .publicKeys([TestServer.serverPublicKeyPin])
            let mismatched = try TLSFixture.transport(listener, tls: tls)
            let error = try #require(await style.send(.get("echo"), through: mismatched).failure)
            #expect(error.code == .pinningMismatch)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aPinnedLeafCertificateIsTrustedByItself(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            // The system store does not know the test CA: the pinned leaf alone anchors the chain.
            var tls = TLSConfiguration()
            tls.pins["127.0.0.1"] = .certificates(Fixture.certificates(TestServer.serverCertificatePEM))
            let transport = try TLSFixture.transport(listener, tls: tls)
            #expect(try await style.send(.get("echo"), through: transport).get().status == .ok)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aPinnedCACertificateAcceptsTheLeavesItSigned(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.unknownAuthority) { listener in
            var tls = TLSConfiguration()
            tls.pins["127.0.0.1"] = .certificates(Fixture.certificates(TestServer.unknownCertificateAuthorityPEM))
            let transport = try TLSFixture.transport(listener, tls: tls)
            #expect(try await style.send(.get("echo"), through: transport).get().status == .ok)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aCertificatePinOutsideTheChainIsAMismatch(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            // The server's chain is trusted (test CA) but leads to none of the pinned certificates.
            var tls = TLSFixture.trustingTestCA
            tls.pins["127.0.0.1"] = .certificates(Fixture.certificates(TestServer.unknownCertificateAuthorityPEM))
            let transport = try TLSFixture.transport(listener, tls: tls)
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == .pinningMismatch)
            #expect(error.curlMessage == "SSL certificate problem: unable to get local issuer certificate")
            #expect(listener.applicationBytesReceived == 0)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func aCertificatePinStillChecksTheHostName(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.wrongHost) { listener in
            var tls = TLSConfiguration()
            tls.pins["127.0.0.1"] = .certificates(Fixture.testCA)
            let transport = try TLSFixture.transport(listener, tls: tls)
            let error = try #require(await style.send(.get("echo"), through: transport).failure)
            #expect(error.code == .hostnameMismatch)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func pinsBindTheirHostOnlyEvenOverAReusableConnection(style: ClientStyle) async throws {
        try await TLSFixture.withListener(.trusted) { listener in
            // One transport; `localhost` pinned to a key the server does not have, `127.0.0.1` not
            // pinned. Both names reach the same listener.
            let tls = TLSFixture.trustingTestCA(pinning: try .publicKeys([Self.otherKeyPin]), for: "localhost")
            let transport = Transport(configuration: Configuration(tls: tls))
            let unpinned = try listener.url(host: "127.0.0.1").appendingPathComponent("echo").absoluteString
            let pinned = try listener.url(host: "localhost").appendingPathComponent("echo").absoluteString

            let first = try await style.send(.get(unpinned), through: transport).get()
            #expect(first.status == .ok)
            #expect(listener.connectionsAccepted == 1)

            // A live connection to the same address exists; the pinned host must not ride on it:
            // it gets a connection of its own, which carries no request byte.
            let error = try #require(await style.send(.post(pinned).body("secret"), through: transport).failure)
            #expect(error.code == .pinningMismatch)
            #expect(listener.connectionsAccepted == 2)
            #expect(listener.applicationBytesByConnection.last == 0)

            // And the pin did not leak onto the unpinned host.
            let again = try await style.send(.get(unpinned), through: transport).get()
            #expect(again.status == .ok)
            #expect(again.metrics.reusedConnection)
        }
    }

    // MARK: A request's own pins, and every host a redirect reaches

    @Test(arguments: ClientStyle.allCases)
    func aRequestsOwnPinsReplaceTheConfigurations(style: ClientStyle) async throws {
        let right = try Pinning.publicKeys([TestServer.serverPublicKeyPin])
        let wrong = try Pinning.publicKeys([Self.otherKeyPin])
        try await TLSFixture.withListener(.trusted) { listener in
            let pinnedWrong = try TLSFixture.transport(listener, tls: TLSFixture.trustingTestCA(pinning: wrong))
            #expect(try await style.send(Request.get("echo").pinning(right), through: pinnedWrong).get().status == .ok)
            #expect(await style.send(.get("echo"), through: pinnedWrong).failure?.code == .pinningMismatch)
        }
        // A listener of its own: the one above may still count the bytes its transport sends
        // when it closes its connection.
        try await TLSFixture.withListener(.trusted) { listener in
            let unpinned = try TLSFixture.transport(listener, tls: TLSFixture.trustingTestCA(pinning: right, for: "other.example"))
            let error = await style.send(Request.post("echo").body("secret").pinning(wrong), through: unpinned).failure
            #expect(error?.code == .pinningMismatch)
            #expect(listener.connectionsAccepted >= 1)  // the handshake happened …
            #expect(listener.applicationBytesReceived == 0)  // … and not one request byte followed
        }
    }

    /// A connection opened without pins is never lent to a request whose pins it did not meet:
    /// curl counts the pinned key among what a reused connection must match.
    @Test(arguments: ClientStyle.allCases)
    func aWarmUnpinnedConnectionDoesNotCarryAPinnedRequest(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server, tls: true)
        #expect(try await style.send(.get("echo"), through: transport).get().status == .ok)
        let wrong = try Pinning.publicKeys([Self.otherKeyPin])
        #expect(await style.send(Request.get("echo").pinning(wrong), through: transport).failure?.code == .pinningMismatch)
        #expect(try await style.send(.get("echo"), through: transport).get().status == .ok)
    }

    /// A redirect from 127.0.0.1 to localhost (the same server under another name): `*` pins
    /// the host the redirect reaches, and a request's own pins reach it too.
    @Test(arguments: ClientStyle.allCases)
    func everyHostARedirectReachesCanBePinned(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let right = try Pinning.publicKeys([TestServer.serverPublicKeyPin])
        let wrong = try Pinning.publicKeys([Self.otherKeyPin])
        let toLocalhost = Request.get("redirect-to?url=https://localhost:\(server.httpsPort)/echo")

        let starWrong = Fixture.transport(server, tls: true) {
            $0.tls.pins = ["127.0.0.1": right, "*": wrong]
        }
        #expect(try await style.send(.get("echo"), through: starWrong).get().status == .ok)
        let stopped = await style.send(toLocalhost, through: starWrong).failure
        #expect(stopped?.code == .pinningMismatch)
        #expect(stopped?.url?.contains("localhost") == true, "\(String(describing: stopped))")
        #expect(try await style.send(toLocalhost.pinning(right), through: starWrong).get().redirects.count == 1)

        let starRight = Fixture.transport(server, tls: true) { $0.tls.pins = ["*": right] }
        #expect(try await style.send(toLocalhost, through: starRight).get().redirects.count == 1)
        #expect(await style.send(toLocalhost.pinning(wrong), through: starRight).failure?.code == .pinningMismatch)
    }
}
