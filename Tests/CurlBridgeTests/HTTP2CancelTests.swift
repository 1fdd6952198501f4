@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// A cancelled HTTP/2 stream must reach the server: otherwise it keeps writing a response nobody
/// reads. libcurl 7.88 queues the stream's `RST_STREAM` and writes it only with the connection's
/// next write, so the transport closes a connection that no other transfer uses.
@Suite(.hangGuard) struct HTTP2CancelTests {
    @Test func cancellingTheOnlyStreamOfAConnectionStopsTheServersResponse() async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let key = UUID().uuidString
        let (head, handle) = try await startDrip(on: transport, key: key)
        #expect(head.httpVersion == .http2)
        #expect(TestServer.openDripCount(key: key) == 1)
        handle.cancel()
        let stopped = await poll(within: .seconds(30), until: { TestServer.openDripCount(key: key) == 0 })
        #expect(stopped, "the server still drips \(TestServer.openDripCount(key: key)) response(s) 30 s after the cancel")
    }

    @Test func aConnectionAnotherStreamStillUsesStaysOpen() async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let (staying, leaving) = (UUID().uuidString, UUID().uuidString)
        let (_, stayingHandle) = try await startDrip(on: transport, key: staying)
        // The second stream starts once the first has its head: curl multiplexes it on that connection.
        let (_, leavingHandle) = try await startDrip(on: transport, key: leaving)
        leavingHandle.cancel()
        try #require(await poll(within: .seconds(60), until: { transport.inFlightCount == 1 }), "the cancel never ended the transfer")
        let leavingStopped = await poll(within: .seconds(30), until: { TestServer.openDripCount(key: leaving) == 0 })
        #expect(leavingStopped, "the cancelled stream's reset did not reach the server while its connection carried another")
        // Had the shared connection been closed, the server would have ended both streams at once.
        #expect(TestServer.openDripCount(key: staying) == 1, "cancelling one stream ended the other stream's response")
        stayingHandle.cancel()
        let stopped = await poll(within: .seconds(30), until: {
            TestServer.openDripCount(key: staying) == 0 && TestServer.openDripCount(key: leaving) == 0
        })
        #expect(stopped, "the server still drips after both cancels")
    }

    /// Starts a `/drip` of one byte every 20 ms for 2,000 s under `key`; returns once its head came.
    private func startDrip(on transport: Transport, key: String) async throws -> (ResponseHead, TransferHandle) {
        let (steps, step) = AsyncStream<ResponseHead?>.makeStream()
        var events = TransferEvents { _ in step.yield(nil) }
        events.onResponseHead = { head in
            step.yield(head)
            return nil
        }
        let handle = try #require(transport.start(.get("drip?bytes=100000&interval=20&count=\(key)"), events: events))
        var iterator = steps.makeAsyncIterator()
        let head = try #require(await iterator.next() ?? nil, "the drip ended before its head")
        return (head, handle)
    }
}
