@testable import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation
import Synchronization
import Testing

/// Shutting a transport down under load: 1,000 requests in flight in the async and callback
/// styles — answers on HTTP/1.1 and HTTP/2 still on their way, retries waiting out a backoff,
/// some being cancelled — while 20 threads keep sending in all three styles.
@Suite(.hangGuard) struct ShutdownStormTests {
    /// Every request's completions, counted by the request's number.
    final class Completions: Sendable {
        private let state = Mutex((counts: [Int: Int](), outcomes: [String: Int]()))
        private let next = Atomic<Int>(0)
        private let handedOver = Atomic<Int>(0)
        private let senders = Atomic<Int>(0)

        /// Notes that a sending thread sent its first request.
        func noteSenderStarted() { senders.add(1, ordering: .relaxed) }
        var sendersStarted: Int { senders.load(ordering: .relaxed) }

        /// Notes that one of the first 1,000 was handed to its client.
        func noteHandedOver() { handedOver.add(1, ordering: .relaxed) }
        var handedOverCount: Int { handedOver.load(ordering: .relaxed) }

        /// A number for a request about to start.
        func number() -> Int { next.wrappingAdd(1, ordering: .relaxed).oldValue }
        var started: Int { next.load(ordering: .relaxed) }

        func record(_ number: Int, _ result: Result<Response, RequestError>) {
            let outcome = switch result {
            case .success: "response"
            case .failure(let error): error.code.description
            }
            state.withLock { state in
                state.counts[number, default: 0] += 1
                state.outcomes[outcome, default: 0] += 1
            }
        }

        var completed: Int { state.withLock { $0.counts.count } }
        var counts: [Int: Int] { state.withLock { $0.counts } }
        var outcomes: [String: Int] { state.withLock { $0.outcomes } }
    }

    @Test func shutdownWithAThousandInFlightWhileTwentyThreadsSend() async throws {
        // A server of its own: this load must not slow the shared server the other suites use.
        let server = try await TestServer.start()
        let transport = Fixture.transport(server) {
            $0.connectionLimits = ConnectionLimits(total: 64)
            $0.retryBudget = .unlimited
        }
        let callback = CallbackClient(transport: transport)
        let async = AsyncClient(transport: transport)
        let blocking = BlockingClient(transport: transport)
        let completions = Completions()
        let plain = server.httpURL.absoluteString, secure = server.httpsURL.absoluteString
        let backoff = RetryPolicy(maximumAttempts: 3, baseDelay: .seconds(5), maximumDelay: .seconds(5))

        // 1,000 in flight: answers 2–4 s away over HTTP/1.1 and HTTP/2, a slow drip, and 503s
        // retried after a backoff of up to 5 s; every tenth is cancelled as the shutdown begins.
        var cancels: [CallbackTask] = []
        for index in 0..<1000 {
            let delay = 2000 + (index * 7919) % 2000
            let request: Request = switch index % 4 {
            case 0: .get(plain + "delay/\(delay)")
            case 1: .get(secure + "delay/\(delay)")
            case 2: .get(secure + "drip?bytes=5&interval=500")
            default: .get(plain + "status/503").retries(backoff)
            }
            let number = completions.number()
            if index % 2 == 0 {
                let task = callback.send(request) { completions.record(number, $0) }
                completions.noteHandedOver()
                if index % 10 == 0 { cancels.append(task) }
            } else {
                Task {
                    completions.noteHandedOver()
                    completions.record(number, await Self.send(request, with: async))
                }
            }
        }

        // 20 threads send one request after another, each waiting for its outcome, until the
        // transport refuses them.
        let senders = DispatchGroup()
        for thread in 0..<20 {
            senders.enter()
            Thread.detachNewThread {
                defer { senders.leave() }
                for round in 0..<100_000 {
                    let request = Request.get((round % 2 == 0 ? plain : secure) + "delay/\(10 + (thread * 31 + round * 17) % 90)")
                    let number = completions.number()
                    let result: Result<Response, RequestError>
                    switch thread % 3 {
                    case 0:
                        result = Result { () throws(RequestError) in try blocking.send(request) }
                    case 1:
                        result = Self.wait { done in callback.send(request) { done($0) } }
                    default:
                        result = Self.wait { done in Task { done(await Self.send(request, with: async)) } }
                    }
                    completions.record(number, result)
                    if round == 0 { completions.noteSenderStarted() }
                    if result.failure?.code == .transportShutDown { return }
                }
            }
        }

        // Shut down once the 1,000 were handed to their clients (their tasks may start late on a
        // busy machine) and the senders are under way, from the watching thread, cancelling every
        // tenth request at the same moment.
        let closed = Atomic<Bool>(false)
        let begun = await poll(
            within: .seconds(60), until: { completions.handedOverCount == 1000 && completions.sendersStarted == 20 },
            then: { [cancels] in
                transport.shutdown { closed.store(true, ordering: .releasing) }
                for task in cancels { task.cancel() }
            })
        try #require(begun, "\(completions.handedOverCount) of 1,000 started, \(completions.sendersStarted) of 20 senders under way")
        let stopped = await poll(within: .seconds(90), until: { senders.wait(timeout: .now()) == .success })
        try #require(stopped, "the sending threads did not stop after the shutdown")
        let finished = await poll(within: .seconds(90), until: {
            closed.load(ordering: .acquiring) && completions.completed == completions.started
        })
        try #require(finished, "\(completions.started - completions.completed) requests never completed; closed: \(closed.load(ordering: .acquiring))")
        callback.completionQueue.sync {}  // a second completion would have been queued before the close

        #expect(completions.counts.values.allSatisfy { $0 == 1 }, "a request completed more than once")
        let outcomes = completions.outcomes
        #expect(Set(outcomes.keys).isSubset(of: ["response", "cancelled", "transportShutDown"]), "\(outcomes)")
        #expect(outcomes["transportShutDown", default: 0] >= 20, "\(outcomes)")  // each sender's last, at least
        #expect(transport.inFlightCount == 0)
        #expect(await ClientStyle.async.send(.get("echo"), through: transport).failure?.code == .transportShutDown)
        try await server.shutdown()
    }

    /// The outcome of an async send.
    static func send(_ request: Request, with client: AsyncClient) async -> Result<Response, RequestError> {
        do throws(RequestError) {
            return .success(try await client.send(request))
        } catch {
            return .failure(error)
        }
    }

    /// Waits on this thread for a completion delivered elsewhere.
    static func wait(
        _ start: (@escaping @Sendable (Result<Response, RequestError>) -> Void) -> Void
    ) -> Result<Response, RequestError> {
        let outcome = Mutex<Result<Response, RequestError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        start { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0 } ?? .failure(RequestError(.transportFailure, "no outcome"))
    }
}
