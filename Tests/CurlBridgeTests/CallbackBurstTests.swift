@testable import CurlBridge
import Dispatch
import Logging
import Synchronization
import Testing

/// ``CallbackClient``'s burst rule: a request sent from a completion handler while other
/// completions still wait for their queue is started by the transport's queue, not by the
/// handler's thread (which would run the loop's turn for its one request while the rest wait).
@Suite("CallbackClient bursts")
struct CallbackBurstTests {
    @Test("a request sent from a handler while another completion waits is put on the wire by the transport's queue")
    func handlerInABurstHandsItsRequestToTheTransport() async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let completions = DispatchQueue(label: "CallbackBurstTests.completions")
        let onCompletionQueue = DispatchSpecificKey<Bool>()
        completions.setSpecific(key: onCompletionQueue, value: true)
        let client = CallbackClient(transport: transport, completionQueue: completions)

        // Every line curl logs for the follow-up says whether it was logged on the completion
        // queue: curl logs inside the loop's turn, on the thread that runs it.
        let capture = LogCapture()
        let logger = {
            var logger = capture.logger(level: .trace)
            logger.handler.metadataProvider = Logger.MetadataProvider {
                ["on_completion_queue": "\(DispatchQueue.getSpecific(key: onCompletionQueue) ?? false)"]
            }
            return logger
        }()

        // Hold the completion queue until both first requests have completed, so that their
        // handlers run back to back: the first runs while the second's completion waits.
        let gate = DispatchSemaphore(value: 0)
        completions.async { gate.wait() }
        let handlersRun = Atomic<Int>(0)
        let waitingBesideTheFirstHandler = Atomic<Int>(-1)
        let (followUp, delivery) = AsyncStream<Result<Response, RequestError>>.makeStream()
        for _ in 0..<2 {
            client.send(.get("echo")) { _ in
                guard handlersRun.add(1, ordering: .relaxed).oldValue == 0 else { return }
                waitingBesideTheFirstHandler.store(client.undelivered.count.load(ordering: .relaxed), ordering: .relaxed)
                client.send(.get("echo").logger(logger)) { delivery.yield($0) }
            }
        }
        let bothWaiting = await poll(within: .seconds(60), until: { client.undelivered.count.load(ordering: .relaxed) == 2 })
        gate.signal()
        try #require(bothWaiting, "both first completions should wait for the held queue")

        let outcome = await followUp.first { _ in true }
        #expect(waitingBesideTheFirstHandler.load(ordering: .relaxed) == 1)
        #expect(try outcome?.get().status.code == 200)
        let sent = capture.lines.filter { $0.metadata["curlbridge.curl_info"] == "header_out" }
        #expect(!sent.isEmpty, "curl should have logged the follow-up's request head")
        #expect(sent.allSatisfy { $0.metadata["on_completion_queue"] == "false" })
        // The queue is serial: the second handler ran before the follow-up's, and nothing waits now.
        #expect(handlersRun.load(ordering: .relaxed) == 2)
        #expect(client.undelivered.count.load(ordering: .relaxed) == 0)
    }
}
