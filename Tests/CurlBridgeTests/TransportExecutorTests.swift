@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Tasks that prefer a transport's ``TransportExecutor`` run on its loop, over the real test server:
/// every request they send completes once, with its body, over HTTP/1.1 and HTTP/2, and the task
/// resumes on the loop's own queue; many such tasks at once share it; cancelling such a task
/// cancels its transfer; a blocking call there is refused rather than deadlocking the loop; and once
/// the transport has shut down, such tasks still run to their end.
@Suite(.hangGuard) struct TransportExecutorTests {
    /// What a task saw after one response.
    struct Sight: Sendable, Equatable {
        let onLoop: Bool
        let status: Int
        let bytes: Int
    }

    @Test(arguments: [false, true])
    func aTaskOnTheExecutorResumesOnTheLoopAfterEachResponse(tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls)
        let client = AsyncClient(transport: transport)
        let sights = try await Task(executorPreference: transport.executor) {
            var sights: [Sight] = []
            for _ in 0..<20 {
                let response = try await client.send(.get("bytes/1000"))
                sights.append(Sight(onLoop: Transport.isOnTransportQueue, status: response.status.code, bytes: response.body.count))
            }
            return sights
        }.value
        #expect(sights == Array(repeating: Sight(onLoop: true, status: 200, bytes: 1000), count: 20))
        // Off the executor, the same client resumes its caller elsewhere, as before.
        _ = try await client.send(.get("bytes/10"))
        #expect(!Transport.isOnTransportQueue)
    }

    @Test func manyTasksOnTheExecutorShareTheLoop() async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let client = AsyncClient(transport: transport)
        let sights = try await Task(executorPreference: transport.executor) {
            try await withThrowingTaskGroup(of: [Sight].self) { group in
                for worker in 0..<64 {
                    group.addTask {
                        var sights: [Sight] = []
                        for request in 0..<5 {
                            let bytes = 100 + worker * 5 + request
                            let response = try await client.send(.get("bytes/\(bytes)"))
                            // The child task inherits the preference: it too resumes on the loop.
                            sights.append(Sight(onLoop: Transport.isOnTransportQueue, status: response.status.code,
                                                bytes: response.body.count - bytes))
                        }
                        return sights
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        }.value
        #expect(sights.count == 320)
        #expect(sights.allSatisfy { $0 == Sight(onLoop: true, status: 200, bytes: 0) })
    }

    @Test func cancellingATaskOnTheExecutorCancelsItsTransfer() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let client = AsyncClient(transport: transport)
        let task = Task(executorPreference: transport.executor) { () async -> RequestError.Code? in
            do throws(RequestError) {
                _ = try await client.send(.get("never-respond"))
                return nil
            } catch {
                return error.code
            }
        }
        try #require(await poll(within: .seconds(60), until: { transport.inFlightCount == 1 }), "the request never started")
        task.cancel()
        #expect(await task.value == .cancelled)
        #expect(await poll(within: .seconds(60), until: { transport.inFlightCount == 0 }), "the cancelled transfer stayed in curl")
    }

    @Test func aBlockingCallOnTheExecutorIsRefused() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        // Even a client that allows blocking inside tasks: on the loop, it would wait for itself.
        let blocking = BlockingClient(transport: transport, policy: .init(allowsInsideTasks: true))
        let (error, marked) = await Task(executorPreference: transport.executor) {
            (sendBlocking(blocking, .get("echo")).failure, TransportExecutor.isRunningJob)
        }.value
        #expect(error?.code == .blockingRefused)
        #expect(error?.message.contains("deadlock") == true)
        #expect(marked)
        #expect(!TransportExecutor.isRunningJob)
    }

    @Test func aTaskOnAShutDownTransportsExecutorRunsToItsEnd() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        await transport.shutdown()
        let client = AsyncClient(transport: transport)
        let (code, onQueue) = await Task(executorPreference: transport.executor) { () async -> (RequestError.Code?, Bool) in
            do throws(RequestError) {
                _ = try await client.send(.get("echo"))
                return (nil, Transport.isOnTransportQueue)
            } catch {
                return (error.code, Transport.isOnTransportQueue)
            }
        }.value
        #expect(code == .transportShutDown)
        #expect(onQueue, "a closed loop's jobs run on the transport's serial queue")
    }
}
