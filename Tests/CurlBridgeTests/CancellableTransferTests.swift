@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The four handles — a blocking call's canceller and the callback client's send, download and
/// stream tasks — held as one protocol and cancelled together.
@Suite(.hangGuard) struct CancellableTransferTests {
    @Test func handlesOfEveryKindCancelThroughOneProtocol() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let callbacks = CallbackClient(transport: transport)
        let (outcomes, deliver) = AsyncStream<(String, RequestError.Code?)>.makeStream()

        let canceller = TransferCanceller()
        let blocking = BlockingClient(transport: transport)
        Thread.detachNewThread {
            do throws(RequestError) {
                _ = try blocking.send(.get("never-respond"), cancellation: canceller)
                deliver.yield(("blocking send", nil))
            } catch {
                deliver.yield(("blocking send", error.code))
            }
        }
        let handles: [any CancellableTransfer] = [
            canceller,
            callbacks.send(.get("never-respond")) { deliver.yield(("callback send", $0.failure?.code)) },
            callbacks.download(.get("never-respond"), to: scratch.file("file")) { deliver.yield(("download", $0.failure?.code)) },
            callbacks.stream(.get("never-respond"), onData: { _ in }) { deliver.yield(("stream", $0.failure?.code)) },
        ]
        // Every request is in flight (the blocking one may still be on its way: a canceller
        // cancels its call however late the call starts).
        try await waitFor("the callback requests to be in flight") { transport.inFlightCount >= 3 }
        for handle in handles { handle.cancel() }

        var ended: [String: RequestError.Code?] = [:]
        for await (name, code) in outcomes {
            ended[name] = code
            if ended.count == handles.count { break }
        }
        #expect(ended == ["blocking send": .cancelled, "callback send": .cancelled, "download": .cancelled, "stream": .cancelled])
    }
}
