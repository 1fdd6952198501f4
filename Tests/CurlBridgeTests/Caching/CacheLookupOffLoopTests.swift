@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The cache reads its store off the transport's loop: a store that does not answer holds only
/// the request that asked it, never the loop (issue 36).
@Suite("HTTP cache: a slow store holds its request, not the loop", .hangGuard, .serialized)
struct CacheLookupOffLoopTests {
    /// A transport whose cache reads `store`, and a resource it may store.
    private func setUp() async throws -> (TestServer, HeldCacheStore, Transport, CountedOrigin) {
        let server = try await Fixture.server()
        let store = HeldCacheStore()
        let cache = HTTPCache(store: store, limit: 8 << 20, clock: { Date() })
        let transport = Fixture.transport(server) { $0.cache = cache }
        let cached = CountedOrigin(server) { n, _ in CountedOrigin.answer("stored \(n)", [("Cache-Control", "max-age=60")]) }
        return (server, store, transport, cached)
    }

    @Test("While one request's lookup is held, another on the same transport completes; released, the first completes too")
    func heldLookupHoldsOnlyItsRequest() async throws {
        let (server, store, transport, cached) = try await setUp()
        let other = CountedOrigin(server) { n, _ in CountedOrigin.answer("other \(n)", []) }
        let client = AsyncClient(transport: transport)
        var reads = store.readsBegun.makeAsyncIterator()

        let held = Task { try await client.send(.get(String(cached.path.dropFirst()))) }
        _ = await reads.next()
        // Decided without the store (no-store), sent and answered while the read above waits.
        let passing = try await client.send(.get(String(other.path.dropFirst())).header("Cache-Control", "no-store"))
        #expect(String(decoding: passing.body, as: UTF8.self) == "other 1")
        #expect(cached.count == 0)

        store.release()
        let first = try await held.value
        #expect(first.cacheStatus == .miss && String(decoding: first.body, as: UTF8.self) == "stored 1")
        let again = try await client.send(.get(String(cached.path.dropFirst())))
        #expect(again.cacheStatus == .hit && cached.count == 1)
    }

    @Test("A request cancelled while its lookup is held fails once as cancelled; the late answer is dropped")
    func cancelWhileLookupHeld() async throws {
        let (_, store, transport, cached) = try await setUp()
        let client = AsyncClient(transport: transport)
        var reads = store.readsBegun.makeAsyncIterator()

        let held = Task { try await client.send(.get(String(cached.path.dropFirst()))) }
        _ = await reads.next()
        held.cancel()
        let error = await #expect(throws: RequestError.self) { try await held.value }
        #expect(error?.code == .cancelled)

        store.release()
        // The answer for the cancelled lookup comes and finds nothing; the transport goes on.
        let next = try await client.send(.get(String(cached.path.dropFirst())))
        #expect(next.cacheStatus == .miss && String(decoding: next.body, as: UTF8.self) == "stored 1")
        #expect(cached.count == 1)
    }

    @Test("Shutdown waits for a request whose lookup is held, which then completes")
    func shutdownWaitsForHeldLookup() async throws {
        let (_, store, transport, cached) = try await setUp()
        let client = AsyncClient(transport: transport)
        var reads = store.readsBegun.makeAsyncIterator()

        let held = Task { try await client.send(.get(String(cached.path.dropFirst()))) }
        _ = await reads.next()
        let shutDown = Task { await transport.shutdown() }

        store.release()
        let response = try await held.value
        await shutDown.value
        #expect(response.cacheStatus == .miss && cached.count == 1)
    }
}
