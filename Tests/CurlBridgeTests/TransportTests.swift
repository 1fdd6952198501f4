@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// The transport's own primitive and pool: events, pause/resume, multiplexing and limits.
@Suite struct TransportTests {
    @Test func concurrentRequestsMultiplexOnOneHTTP2Connection() async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let client = AsyncClient(transport: transport)
        let responses = try await withThrowingTaskGroup(of: Response.self) { group in
            for _ in 0..<12 { group.addTask { try await client.send(.get("delay/300")) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.allSatisfy { $0.httpVersion == .http2 })
        #expect(Set(try responses.map { try $0.echo().connectionID }).count == 1)
        #expect(Set(responses.map(\.metrics.localPort)).count == 1)
        #expect(responses.filter { !$0.metrics.reusedConnection }.count == 1)
    }

    @Test func perHostLimitCapsHTTP1Connections() async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.connectionLimits.perHost = 2 }
        let client = AsyncClient(transport: transport)
        let responses = try await withThrowingTaskGroup(of: Response.self) { group in
            for _ in 0..<6 { group.addTask { try await client.send(.get("delay/500")) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Six overlapping requests: two connections (one, if a slow machine served them one by one).
        #expect((1...2).contains(Set(try responses.map { try $0.echo().connectionID }).count))
    }

    @Test func transferWaitingForAConnectionIsNotIdle() async throws {
        // One connection per host: the second request waits ~1.5 s for it, longer than its idle
        // limit; the idle clock must start only once it is connected.
        // The callback client submits synchronously, so the first request is queued in curl before
        // the second whatever the task scheduling.
        let transport = Fixture.transport(try await Fixture.server()) { $0.connectionLimits.perHost = 1 }
        let (firstOutcome, delivery) = AsyncStream<Result<Response, RequestError>>.makeStream()
        CallbackClient(transport: transport).send(.get("delay/1500")) { delivery.yield($0) }
        let second = try await AsyncClient(transport: transport).send(Request.get("delay/0").timeout(idle: .milliseconds(700)))
        let first = try #require(await firstOutcome.first { _ in true }).get()
        #expect(second.status == .ok && first.status == .ok)
        #expect(second.metrics.total > .milliseconds(1000))  // it really waited for the connection
        #expect(try second.echo().connectionID == first.echo().connectionID)
    }

    @Test func eventsArriveInOrderAndCompletionExactlyOnce() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let log = Mutex<[String]>([])
        let received = Mutex(0)
        var events = TransferEvents { result in
            log.withLock { $0.append("complete \((try? result.get().status.code) ?? -1)") }
        }
        events.onResponseHead = { head in
            log.withLock { $0.append("head \(head.status.code) \(head.headerFields[.contentLength] ?? "")") }
            return nil
        }
        events.onBodyChunk = { chunk in
            received.withLock { $0 += chunk.count }
            return .accept
        }
        events.onProgress = { progress in
            if progress.bytesReceived == 200_000, progress.expectedBytesToReceive == 200_000 {
                log.withLock { if !$0.contains("progress done") { $0.append("progress done") } }
            }
        }
        let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let completion = events.onComplete
        events.onComplete = { result in
            completion(result)
            finished.withLock { $0?.resume() }
        }
        await withCheckedContinuation { continuation in
            finished.withLock { $0 = continuation }
            transport.start(.get("bytes/200000"), events: events)
        }
        let entries = log.withLock { $0 }
        #expect(entries.first == "head 200 200000")
        #expect(entries.last == "complete 200")
        #expect(entries.filter { $0.hasPrefix("complete") }.count == 1)
        #expect(entries.contains("progress done"))
        #expect(received.withLock { $0 } == 200_000)
    }

    @Test func pausedTransferResumesWithNoBytesLostAndIsNeverIdle() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let collected = Mutex(Data())
        let pausedOnce = Mutex(false)
        // Paused for 4 s against a 3 s idle limit: the pause must not count as idle.
        let request = Request.get("bytes/300000").timeout(idle: .seconds(3))
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response, RequestError>, Never>) in
            let handle = Mutex<TransferHandle?>(nil)
            var events = TransferEvents { continuation.resume(returning: $0) }
            events.onBodyChunk = { chunk in
                // Refuse the first chunk: it must come back after resume, not be lost or doubled.
                let isFirst = pausedOnce.withLock { paused in
                    defer { paused = true }
                    return !paused
                }
                if isFirst {
                    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(4)) {
                        handle.withLock { $0 }?.resume()
                    }
                    return .pause
                }
                collected.withLock { $0.append(contentsOf: chunk) }
                return .accept
            }
            handle.withLock { $0 = transport.start(request, events: events) }
        }
        #expect(try result.get().status == .ok)
        #expect(collected.withLock { $0 } == Data((0..<300_000).map { UInt8($0 % 251) }))
    }

    @Test func pauseAndResumeThroughTheHandle() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let chunks = Mutex(0)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response, RequestError>, Never>) in
            var events = TransferEvents { continuation.resume(returning: $0) }
            events.onBodyChunk = { _ in chunks.withLock { $0 += 1 }; return .accept }
            let handle = transport.start(Request.get("drip?bytes=6&interval=50").timeout(idle: .seconds(3)), events: events)
            handle?.pause()
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(4)) { handle?.resume() }
        }
        #expect(try result.get().status == .ok)
        #expect(chunks.withLock { $0 } >= 1)
    }

    @Test func manyTransfersInFlightAtOnceAllComplete() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let client = AsyncClient(transport: transport)
        let statuses = await withTaskGroup(of: Int.self) { group in
            for index in 0..<300 {
                group.addTask { (try? await client.send(.get("delay/\(index % 50)")).status.code) ?? -1 }
            }
            return await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(statuses == [200: 300])
    }
}
