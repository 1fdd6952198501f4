@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The cache in every style, for send, stream and download, over HTTP/1.1 and HTTP/2: the first
/// request is a miss that is stored, the second a hit the server never sees; a stale one is
/// revalidated with a `304` and served from the cache. Serialized, as the other cache and queue
/// suites: run at once, their transports and TLS handshakes crowd the suites beside them on two cores.
@Suite("HTTP cache: three styles × send, stream, download × HTTP/1.1 and HTTP/2", .hangGuard, .serialized)
struct CacheVerbTests {
    enum Verb: String, CaseIterable, CustomStringConvertible, Sendable {
        case send, stream, download
        var description: String { rawValue }
    }

    /// What a verb delivered: the body, the status, and where it came from.
    struct Delivery: Equatable {
        var body: Data
        var status: Int
        var cacheStatus: CacheStatus?
    }

    static let body = String(repeating: "cacheable ", count: 10_000)  // 100 kB: several body pieces

    private func deliver(_ verb: Verb, _ style: ClientStyle, _ request: Request, through transport: Transport) async throws -> Delivery {
        switch verb {
        case .send:
            let response = try await style.send(request, through: transport).get()
            return Delivery(body: response.body, status: response.status.code, cacheStatus: response.cacheStatus)
        case .stream:
            let outcome = await style.stream(request, bufferLimits: BufferLimits(highWatermark: 32 << 10, lowWatermark: 8 << 10), through: transport)
            if let error = outcome.error { throw error }
            return Delivery(body: outcome.body, status: outcome.head?.status.code ?? 0, cacheStatus: outcome.head?.cacheStatus)
        case .download:
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("cached-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: destination) }
            let response = try await style.download(request, to: destination, through: transport).get()
            return Delivery(body: try Data(contentsOf: destination), status: response.status.code, cacheStatus: response.metrics.cacheStatus)
        }
    }

    @Test("A fresh response is stored, then served without a request", arguments: ClientStyle.allCases, Verb.allCases)
    func freshResponseIsServedFromTheCache(style: ClientStyle, verb: Verb) async throws {
        for tls in [false, true] {
            let server = try await Fixture.server()
            let origin = CountedOrigin(server) { _, _ in CountedOrigin.answer(Self.body, [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")]) }
            let (transport, _) = try cachingTransport(server, tls: tls)
            let request = Request.get(String(origin.path.dropFirst()))

            let first = try await deliver(verb, style, request, through: transport)
            let second = try await deliver(verb, style, request, through: transport)

            #expect(first == Delivery(body: Data(Self.body.utf8), status: 200, cacheStatus: .miss), "tls: \(tls)")
            #expect(second == Delivery(body: Data(Self.body.utf8), status: 200, cacheStatus: .hit), "tls: \(tls)")
            #expect(origin.count == 1, "tls: \(tls)")
        }
    }

    @Test("A stale response is revalidated: the 304 updates its headers and the stored body answers", arguments: ClientStyle.allCases, Verb.allCases)
    func staleResponseIsRevalidated(style: ClientStyle, verb: Verb) async throws {
        for tls in [false, true] {
            let server = try await Fixture.server()
            let origin = CountedOrigin(server) { number, request in
                if number > 1, request.header("If-None-Match") == "\"v1\"" {
                    return CountedOrigin.answer("", status: 304, [("ETag", "\"v1\""), ("X-Checked", "\(number)"), ("Cache-Control", "max-age=10")])
                }
                return CountedOrigin.answer(Self.body, [("Cache-Control", "max-age=10"), ("ETag", "\"v1\""), ("X-Checked", "1")])
            }
            let clock = CacheClock()
            let (transport, _) = try cachingTransport(server, tls: tls, clock: clock)
            let request = Request.get(String(origin.path.dropFirst()))

            _ = try await deliver(verb, style, request, through: transport)
            clock.advance(11)
            let revalidated = try await deliver(verb, style, request, through: transport)
            let hit = try await deliver(verb, style, request, through: transport)

            #expect(revalidated == Delivery(body: Data(Self.body.utf8), status: 200, cacheStatus: .revalidated), "tls: \(tls)")
            #expect(hit.cacheStatus == .hit, "the 304's max-age made it fresh again (tls: \(tls))")
            #expect(origin.count == 2, "tls: \(tls)")
            #expect(origin.requests.last?.header("If-None-Match") == "\"v1\"", "tls: \(tls)")
        }
    }
}
