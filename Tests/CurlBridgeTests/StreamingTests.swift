@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// Streamed responses: head first, body as it arrives, bounded memory, cancellation.
@Suite struct StreamingTests {
    @Test(arguments: ClientStyle.allCases, [false, true])
    func headThenEveryByteThroughASmallBuffer(style: ClientStyle, tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls)
        // A 64 KiB buffer against a 3 MB body: the transfer pauses and resumes many times.
        let limits = BufferLimits(highWatermark: 64 << 10, lowWatermark: 16 << 10)
        let outcome = await style.stream(.get("bytes/3000000"), bufferLimits: limits, through: transport)
        #expect(outcome.error == nil)
        #expect(outcome.head?.status == .ok)
        #expect(outcome.head?.headerFields[.contentLength] == "3000000")
        #expect(outcome.body == Data((0..<3_000_000).map { UInt8($0 % 251) }))
        #expect(outcome.chunks > 1)
        #expect(outcome.orderViolations == 0)
    }

    @Test(arguments: ClientStyle.allCases)
    func headArrivesBeforeTheBodyIsComplete(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        // Five bytes 100 ms apart: they can only arrive as separate chunks after the head.
        let outcome = await style.stream(.get("drip?bytes=5&interval=100"), through: transport)
        #expect(outcome.head?.status == .ok)
        #expect(outcome.body == Data("*****".utf8))
        #expect(outcome.chunks == 5)
    }

    @Test(arguments: ClientStyle.allCases)
    func failureBeforeTheHeadIsThrownAndAfterItEndsTheBody(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let refused = await style.stream(.get("never-respond").timeout(idle: .milliseconds(300)), through: transport)
        #expect(refused.head == nil)
        #expect(refused.error?.code == .idleTimedOut)
        let truncated = await style.stream(.get("close-mid-body"), through: transport)
        #expect(truncated.head?.status == .ok)
        #expect(truncated.body.count == 100)
        #expect(truncated.error?.code == .responseTruncated)
    }

    @Test func consumerThatNeverReadsKeepsMemoryBoundedUntilTheTotalTimeout() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let received = Mutex<Int64>(0)
        let limits = BufferLimits(highWatermark: 256 << 10, lowWatermark: 64 << 10)
        // 50 MB that nobody reads: the transfer must stop at the buffer's limit and wait, paused
        // — not idle: the 1 s idle limit must not fire — until the 4 s total limit ends it.
        let request = Request.get("bytes/50000000").timeout(idle: .seconds(1), total: .seconds(4))
        let streamed = try await AsyncClient(transport: transport).stream(request, bufferLimits: limits) { progress in
            received.withLock { $0 = max($0, progress.bytesReceived) }
        }
        try await transport.waitUntilIdle()
        var iterator = streamed.body.makeAsyncIterator()
        var read = 0
        do {
            while let chunk = try await iterator.next() { read += chunk.count }
            Issue.record("a 50 MB body cannot arrive whole through a buffer nobody read")
        } catch {
            #expect(error.code == .totalTimedOut)
        }
        // What curl took from the socket: the buffer, one refused chunk it holds, and one receive buffer.
        let ceiling = Int64(limits.highWatermark + 2 * transport.configuration.receiveBufferSize)
        #expect(received.withLock { $0 } <= ceiling)
        #expect(Int64(read) <= ceiling)
    }

    @Test func droppingTheBodyCancelsTheTransfer() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        do {
            let streamed = try await AsyncClient(transport: transport).stream(.get("drip?bytes=100&interval=100"))
            #expect(streamed.status == .ok)
            #expect(transport.inFlightCount == 1)
        }
        try await transport.waitUntilIdle()
    }

    @Test func cancellingTheReadingTaskCancelsTheTransfer() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let client = AsyncClient(transport: transport)
        let (firstChunk, signal) = AsyncStream<Void>.makeStream()
        let task = Task { () async throws(RequestError) -> Int in
            let streamed = try await client.stream(.get("drip?bytes=100&interval=100"))
            var count = 0
            for try await chunk in streamed.body {
                count += chunk.count
                signal.yield()
            }
            return count
        }
        _ = await firstChunk.first { _ in true }
        task.cancel()
        #expect((await task.result.failure as? RequestError)?.code == .cancelled)
        try await transport.waitUntilIdle()
    }

    @Test func blockingReaderCloseCancelsAndLaterReadsReportIt() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let client = BlockingClient(transport: transport)
        let error = await onWorkerThread { () -> RequestError? in
            do throws(RequestError) {
                let reader = try client.stream(.get("drip?bytes=100&interval=100"))
                _ = try reader.read()
                reader.close()
                while try reader.read() != nil {}
                return nil
            } catch {
                return error
            }
        }
        #expect(error?.code == .cancelled)
        try await transport.waitUntilIdle()
    }

    @Test func callbackDeliveryPausesAndResumesWithoutLosingBytes() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let client = CallbackClient(transport: transport)
        let limits = BufferLimits(highWatermark: 128 << 10, lowWatermark: 32 << 10)
        let state = Mutex((paused: false, violations: 0, body: Data()))
        let taskBox = Mutex<StreamTask?>(nil)
        let (ended, end) = AsyncStream<Result<Response, RequestError>>.makeStream()
        let task = client.stream(
            .get("bytes/2000000"), bufferLimits: limits,
            onResponse: { _ in
                state.withLock { $0.paused = true }
                taskBox.withLock { $0 }?.pause()
            },
            onData: { data in
                state.withLock {
                    if $0.paused { $0.violations += 1 }
                    $0.body.append(data)
                }
            },
            onComplete: { end.yield($0) })
        taskBox.withLock { $0 = task }
        // Delivery is paused from the head on: the buffer fills and curl must pause the transfer.
        try await waitFor("the transfer to pause for room") { task.isWaitingForRoom }
        state.withLock { $0.paused = false }
        task.resume()
        let result = await ended.first { _ in true }
        #expect((try result?.get())?.status == .ok)
        let (_, violations, body) = state.withLock { $0 }
        #expect(violations == 0)
        #expect(body == Data((0..<2_000_000).map { UInt8($0 % 251) }))
    }
}
