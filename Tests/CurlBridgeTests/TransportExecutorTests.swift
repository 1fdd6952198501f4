@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Tasks that prefer a transport's ``TransportExecutor`` run on its loop, over the real test server:
/// every request they send completes once, with its body, over HTTP/1.1 and HTTP/2, and the task
/// resumes on the transport's queue; many such tasks at once share it; cancelling such a task
/// cancels its transfer; a blocking call there is refused rather than deadlocking the loop; while a
/// blocking caller drives the loop, jobs still run on the queue, never inside that caller's call;
/// and once the transport has shut down, such tasks still run to their end.
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
                sights.append(Sight(onLoop: (GuardedQueue.current == .transportLoop), status: response.status.code, bytes: response.body.count))
            }
            return sights
        }.value
        #expect(sights == Array(repeating: Sight(onLoop: true, status: 200, bytes: 1000), count: 20))
        // Off the executor, the same client resumes its caller elsewhere, as before.
        _ = try await client.send(.get("bytes/10"))
        #expect((GuardedQueue.current != .transportLoop))
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
                            sights.append(Sight(onLoop: (GuardedQueue.current == .transportLoop), status: response.status.code,
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
        let error = await Task(executorPreference: transport.executor) {
            sendBlocking(blocking, .get("echo")).failure
        }.value
        #expect(error?.code == .blockingRefused)
        #expect(error?.message.contains("deadlock") == true)
    }

    /// A blocking caller that finds the transport idle drives its loop on its own thread; a job of
    /// the executor arriving meanwhile runs on the transport's queue, not inside that caller's call.
    @Test func whileABlockingCallerDrivesTheLoopJobsRunOnTheQueue() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let blocking = BlockingClient(transport: transport)
        let client = AsyncClient(transport: transport)
        let driver = PosixLock<pthread_t?>(nil)
        let blocked = Task { await onWorkerThread { () -> RequestError.Code? in
            driver.withLock { $0 = pthread_self() }
            return sendBlocking(blocking, .get("never-respond")).failure?.code
        } }
        try #require(await poll(within: .seconds(60), until: { transport.inFlightCount == 1 }), "the blocking request never started")
        let (onQueue, onDriver, status) = try await Task(executorPreference: transport.executor) {
            let response = try await client.send(.get("bytes/10"))
            let here = pthread_self()
            return ((GuardedQueue.current == .transportLoop), driver.withLock { $0.map { pthread_equal($0, here) != 0 } ?? false },
                    response.status.code)
        }.value
        #expect(status == 200)
        #expect(onQueue && !onDriver)
        transport.cancelAll()
        #expect(await blocked.value == .cancelled)
    }

    @Test func aTaskOnAShutDownTransportsExecutorRunsToItsEnd() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        await transport.shutdown()
        let client = AsyncClient(transport: transport)
        let (code, onQueue) = await Task(executorPreference: transport.executor) { () async -> (RequestError.Code?, Bool) in
            do throws(RequestError) {
                _ = try await client.send(.get("echo"))
                return (nil, (GuardedQueue.current == .transportLoop))
            } catch {
                return (error.code, (GuardedQueue.current == .transportLoop))
            }
        }.value
        #expect(code == .transportShutDown)
        #expect(onQueue, "a closed loop's jobs run on the transport's serial queue")
    }
}
