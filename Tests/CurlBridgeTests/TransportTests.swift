@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// The transport's own primitive and pool: events, pause/resume, multiplexing and limits.
@Suite(.hangGuard) struct TransportTests {
    @Test func concurrentRequestsMultiplexOnOneHTTP2Connection() async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        // Started together, all twelve are waiting while the one connection is still being set up.
        let outcomes = await transport.startTogether(Array(repeating: .get("delay/300"), count: 12))
        let responses = try outcomes.map { try $0.get() }
        #expect(responses.allSatisfy { $0.httpVersion == .http2 })
        #expect(Set(try responses.map { try $0.echo().connectionID }).count == 1)
        #expect(Set(responses.map(\.metrics.localPort)).count == 1)
        #expect(responses.filter { !$0.metrics.reusedConnection }.count == 1)
    }

    @Test func perHostLimitCapsHTTP1Connections() async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.connectionLimits.perHost = 2 }
        // Started together, six requests of 500 ms each overlap whatever the task scheduling: the
        // first two get a connection each, the other four wait for one of those.
        let outcomes = await transport.startTogether(Array(repeating: .get("delay/500"), count: 6))
        let responses = try outcomes.map { try $0.get() }
        #expect(Set(try responses.map { try $0.echo().connectionID }).count == 2)
    }

    @Test func transferWaitingForAConnectionIsNotIdle() async throws {
        // One connection per host: the second request waits ~5 s for it, far longer than its 2 s
        // idle limit; the idle clock must start only once it is connected. (The loop re-arms a
        // waiting transfer's idle clock at each idle check, and restarts it at the first check
        // that finds it connected, so the answer always has a whole idle period to arrive.)
        let transport = Fixture.transport(try await Fixture.server()) { $0.connectionLimits.perHost = 1 }
        let (firstOutcome, first) = AsyncStream<Result<Response, RequestError>>.makeStream()
        let (secondOutcome, second) = AsyncStream<Result<Response, RequestError>>.makeStream()
        transport.start(.get("delay/5000"), events: TransferEvents { first.yield($0) })
        // Queued the moment the first is in curl, so it is the one left waiting, and from the
        // watching thread, so a starved test task cannot start it after the first has finished.
        try await transport.waitUntilInFlight(1, then: {
            transport.start(Request.get("delay/0").timeout(idle: .seconds(2)), events: TransferEvents { second.yield($0) })
        })
        let holder = try #require(await firstOutcome.first { _ in true }).get()
        let waiter = try #require(await secondOutcome.first { _ in true }).get()
        #expect(holder.status == .ok && waiter.status == .ok)
        #expect(waiter.metrics.total > .seconds(2))  // it waited longer than its idle limit
        #expect(try waiter.echo().connectionID == holder.echo().connectionID)
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
        events.body = ClosureBodySink { chunk in
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
        await transport.drainEvents()  // a wrong second completion would be logged by now
        let entries = log.withLock { $0 }
        #expect(entries.first == "head 200 200000")
        #expect(entries.last == "complete 200")
        #expect(entries.filter { $0.hasPrefix("complete") }.count == 1)
        #expect(entries.contains("progress done"))
        #expect(received.withLock { $0 } == 200_000)
    }

    @Test func pausedTransferResumesWithNoBytesLostAndIsNeverIdle() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        // The premise is a first chunk to refuse within the 3 s idle limit. On a starved machine the
        // shared server once sent none in time (1 loaded suite run in 20, issue 37's sixteenth
        // stop): such a transfer ends idle before its first byte, tests nothing, and is started
        // again. Any other first step fails.
        for _ in 1...5 {
            let transfer = FirstChunkRefused()
            let handle = try #require(transfer.start(on: transport, idleLimit: .seconds(3)))
            var progress = transfer.steps.makeAsyncIterator()
            let first = await progress.next()
            if first?.outcome?.failure?.code == .idleTimedOut, transfer.received.isEmpty { continue }
            try #require(first == .paused, "the first step was \(String(describing: first))")
            #expect(await Self.idleLimitPassed(.seconds(3), on: transport) == .idleTimedOut)
            handle.resume()
            let outcome = try #require(await progress.next()?.outcome)
            #expect(try outcome.get().status == .ok)
            #expect(transfer.received == Data((0..<300_000).map { UInt8($0 % 251) }))
            return
        }
        Issue.record("five transfers in a row ended idle before their first byte")
    }

    /// A transfer of 300,000 bytes whose body consumer refuses the first chunk, pausing the
    /// transfer: the chunk must come back after a resume, neither lost nor doubled.
    private final class FirstChunkRefused: Sendable {
        let steps: AsyncStream<TransferStep>
        private let step: AsyncStream<TransferStep>.Continuation
        private let collected = Mutex(Data())
        private let hasRefused = Mutex(false)

        init() {
            (steps, step) = AsyncStream.makeStream()
        }

        /// The bytes accepted so far.
        var received: Data { collected.withLock { $0 } }

        func start(on transport: Transport, idleLimit: Duration) -> TransferHandle? {
            var events = TransferEvents { [step] in step.yield(.completed($0)) }
            events.body = ClosureBodySink { self.take($0) }
            return transport.start(Request.get("bytes/300000").timeout(idle: idleLimit), events: events)
        }

        private func take(_ chunk: UnsafeRawBufferPointer) -> BodyChunkVerdict {
            let isFirst = hasRefused.withLock { hasRefused in
                defer { hasRefused = true }
                return !hasRefused
            }
            if isFirst {
                step.yield(.paused)
                return .pause
            }
            collected.withLock { $0.append(contentsOf: chunk) }
            return .accept
        }
    }

    @Test func pauseAndResumeThroughTheHandle() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let received = Mutex(0)
        let handle = Mutex<TransferHandle?>(nil)
        let (steps, step) = AsyncStream<TransferStep>.makeStream()
        var events = TransferEvents { step.yield(.completed($0)) }
        events.onResponseHead = { _ in
            // Paused from inside the transfer, so surely before its six bytes (200 ms apart) are in.
            // `start` stores the handle under the lock, so it is there by the time this can run.
            handle.withLock { $0 }?.pause()
            step.yield(.head)
            return nil
        }
        events.body = ClosureBodySink { chunk in
            received.withLock { $0 += chunk.count }
            return .accept
        }
        let key = UUID().uuidString
        let request = Request.get("drip?bytes=6&interval=200&count=\(key)").timeout(idle: .seconds(5))
        handle.withLock { $0 = transport.start(request, events: events) }
        var progress = steps.makeAsyncIterator()
        let first = await progress.next()
        try #require(first == .head, "the first step was \(String(describing: first)), not the head")
        #expect(await Self.idleLimitPassed(.seconds(5), on: transport) == .idleTimedOut)
        #expect(received.withLock { $0 } < 6)  // still paused, not finished
        // Resumed once the server wrote its last byte, so that what follows the resume waits on
        // no server: on a loaded machine a starved server could be silent for the whole idle
        // limit after the resume (a fresh-clone CI run beside two flake checks saw it).
        try await waitFor("the server to finish the drip") { TestServer.openDripCount(key: key) == 0 }
        handle.withLock { $0 }?.resume()
        let outcome = try #require(await progress.next()?.outcome)
        #expect(try outcome.get().status == .ok)
        #expect(received.withLock { $0 } == 6)
    }

    /// Waits, without a sleep, until the loop has checked idle transfers past the deadlines of
    /// those that last moved before this call, were they not paused: a request with the same idle
    /// limit that starts now and never gets an answer times out only on such a check. Returns how
    /// that request ended (``RequestError/Code/idleTimedOut`` when all is well).
    static func idleLimitPassed(_ limit: Duration, on transport: Transport) async -> RequestError.Code? {
        await ClientStyle.async.send(Request.get("never-respond").timeout(idle: limit), through: transport).failure?.code
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
