import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Testing

/// Every HTTP/1.1 fault of ``FaultServer`` × send, stream and download × the three styles ×
/// plain and TLS: exactly one completion, with the precise code, and no success with a partial
/// or smuggled body.
@Suite("HTTP/1.1 faults", .hangGuard)
struct HTTP1FaultTests {
    @Test("each fault ends once with its code", arguments: FaultCase.catalogue, FaultRoute.all)
    func faultEndsOnceWithItsCode(fault: FaultCase, route: FaultRoute) async throws {
        guard fault.applies(to: route) else { return }
        let server = try await FaultFixture.server()
        let key = FaultFixture.key()
        let (transport, completions) = FaultFixture.transport(fault.configure)
        let request = Request.get(server.url(fault.fault, tls: route.tls, key: key, fault.parameters))
        let (outcome, _, error) = await route.run(request, through: transport)
        #expect(outcome == fault.expected(for: route.verb), "curl said: \(error?.curlMessage ?? "-")")
        #expect(await completions.completions(containing: key, through: transport, server: server) == 1)
        // At most once: a timeout on a loaded machine may end the request before it reached the server.
        #expect(server.record(key: key).requests.count <= 1, "the request was sent again")
    }

    @Test("a bare LF inside a header value ends the line: two headers, no value with a line break", arguments: FaultRoute.all)
    func bareLineFeedEndsTheLine(route: FaultRoute) async throws {
        let server = try await FaultFixture.server()
        let (transport, _) = FaultFixture.transport()
        let request = Request.get(server.url(.bareLFInHeader, tls: route.tls, key: FaultFixture.key()))
        let (_, headers, _) = await route.run(request, through: transport)
        #expect(headers?[HTTPField.Name("X-Fault")!] == "before")
        #expect(headers?[HTTPField.Name("X-Smuggled")!] == "after")
    }

    @Test("a 10 GB Content-Length is refused at the head, before the body is read", arguments: ClientStyle.allCases, [false, true])
    func hugeContentLengthRefusedAtTheHead(style: ClientStyle, tls: Bool) async throws {
        let server = try await FaultFixture.server()
        let key = FaultFixture.key()
        let (transport, _) = FaultFixture.transport { $0.timeouts.idle = .seconds(30) }
        let result = await style.send(.get(server.url(.hugeContentLength, tls: tls, key: key)), through: transport)
        #expect(result.failure?.code == .bodyTooLarge)
        // The server stalls after 1 KiB of body: only the client's close ends the connection.
        let closed = await poll(within: .seconds(30), until: { server.record(key: key).closedByClient == 1 })
        #expect(closed, "the client kept the connection open")
        #expect(server.record(key: key).bytesSentBeforeClientClose < 2048)
    }

    @Test("a kept-alive TLS connection the server dropped without close_notify fails no later request", arguments: ClientStyle.allCases)
    func aConnectionDroppedWithoutCloseNotifyFailsNoLaterRequest(style: ClientStyle) async throws {
        let server = try await FaultFixture.server()
        let key = FaultFixture.key()
        let (transport, _) = FaultFixture.transport()
        let request = Request.get(server.url(.uncleanTLSClose, tls: true, key: key, ["framing": "length"]))
        for attempt in 1...3 {
            let result = await style.send(request, through: transport)
            #expect((try? result.get())?.body == FaultCase.hundredBytes, "attempt \(attempt): \(result)")
        }
    }

    @Test("plaintext HTTP on the TLS port fails the handshake", arguments: ClientStyle.allCases)
    func plaintextOnTheTLSPort(style: ClientStyle) async throws {
        let server = try await FaultFixture.server()
        let (transport, _) = FaultFixture.transport()
        let result = await style.send(.get(server.plaintextOnTLSURL), through: transport)
        #expect(result.failure?.code == .tlsHandshakeFailed, "\(result)")
    }
}
