@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// Request bodies from files, async sequences and pull closures, in every style.
@Suite(.hangGuard) struct UploadTests {
    static let payload = TestServer.patternBody(0..<3_000_000, version: 7)

    @Test(arguments: ClientStyle.allCases, [false, true])
    func fileIsStreamedWithItsLengthAndProgressReachesTheEnd(style: ClientStyle, tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("upload.bin")
        try Self.payload.write(to: file)
        let progress = ProgressLog()
        let response = try await style.send(.put("upload-sink").body(fileAt: file), progress: progress.record, through: transport).get()
        let reply = try response.decode(UploadSinkReply.self)
        #expect(reply.method == "PUT")
        #expect(reply.length == Self.payload.count)
        #expect(reply.sha256 == sha256Hex(Self.payload))
        #expect(reply.contentLength == "3000000")
        #expect(progress.all.last?.bytesSent == 3_000_000)
        #expect(progress.all.last?.expectedBytesToSend == 3_000_000)
        #expect(zip(progress.all, progress.all.dropFirst()).allSatisfy { $0.bytesSent <= $1.bytesSent })
    }

    @Test(arguments: ClientStyle.allCases, [false, true])
    func pullClosureWithoutLengthIsSentChunked(style: ClientStyle, tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls)
        let response = try await style.send(.post("upload-sink").body(pulling: Self.chunks()), through: transport).get()
        let reply = try response.decode(UploadSinkReply.self)
        #expect(reply.length == Self.payload.count)
        #expect(reply.sha256 == sha256Hex(Self.payload))
        if tls {
            #expect(reply.httpVersion == "2")
        } else {
            #expect(reply.transferEncoding == "chunked")
            #expect(reply.contentLength == nil)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func asyncSequenceWithLengthSendsContentLength(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let request = Request.post("upload-sink").body(streaming: Self.sequence(), length: Int64(Self.payload.count))
        let reply = try await style.send(request, through: transport).get().decode(UploadSinkReply.self)
        #expect(reply.contentLength == "3000000")
        #expect(reply.sha256 == sha256Hex(Self.payload))
    }

    @Test(arguments: ClientStyle.allCases)
    func throwingSourceFailsTheRequestWithItsError(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let pulled = Mutex(0)
        let pulling = Request.post("upload-sink").body { () throws -> Data? in
            let count = pulled.withLock { $0 += 1; return $0 }
            if count > 3 { throw SourceBroke() }
            return Data(count: 100_000)
        }
        let error = await style.send(pulling, through: transport).failure
        #expect(error?.code == .bodySourceFailed)
        #expect(error?.underlying is SourceBroke)

        let sequence = AsyncThrowingStream<Data, Error> { continuation in
            continuation.yield(Data(count: 100_000))
            continuation.finish(throwing: SourceBroke())
        }
        let streamed = await style.send(.post("upload-sink").body(streaming: sequence), through: transport).failure
        #expect(streamed?.code == .bodySourceFailed)
        #expect(streamed?.underlying is SourceBroke)
    }

    @Test(arguments: ClientStyle.allCases)
    func streamShorterThanItsAnnouncedLengthFails(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let request = Request.post("upload-sink").body(streaming: Self.sequence(), length: Int64(Self.payload.count + 1))
        let error = await style.send(request, through: transport).failure
        #expect(error?.code == .bodySourceFailed)
    }

    @Test(arguments: ClientStyle.allCases)
    func streamIsSentOnceOnly(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let request = Request.post("upload-sink").body(pulling: Self.chunks())
        #expect(try await style.send(request, through: transport).get().status == .ok)
        #expect(await style.send(request, through: transport).failure?.code == .bodyNotRewindable)
    }

    @Test func sendingAStreamAgainWhileItIsSentLeavesTheFirstSendWhole() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let client = AsyncClient(transport: transport)
        let pulled = Mutex(0)
        let next = Self.chunks()
        let request = Request.post("upload-sink").body { () -> Data? in
            pulled.withLock { $0 += 1 }
            return next()
        }
        let first = Task { () async throws(RequestError) -> Response in try await client.send(request) }
        try await waitFor("the first send to pull") { pulled.withLock { $0 } > 0 }
        let second = await style(.async, request, transport)
        #expect(second?.code == .bodyNotRewindable)
        let reply = try await first.result.get().decode(UploadSinkReply.self)
        #expect(reply.sha256 == sha256Hex(Self.payload))
    }

    @Test(arguments: ClientStyle.allCases)
    func streamLongerThanItsAnnouncedLengthFailsWithoutSendingTheExcess(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let request = Request.post("upload-sink").body(streaming: Self.sequence(), length: 1_000_000)
        let error = await style.send(request, through: transport).failure
        #expect(error?.code == .bodySourceFailed, "\(String(describing: error))")
    }

    @Test func cancelledBeforeItStartsABlockingSendIsCancelled() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let canceller = TransferCanceller()
        canceller.cancel()
        let client = BlockingClient(transport: transport)
        let error = await onWorkerThread { Result { () throws(RequestError) in try client.send(.get("drip?bytes=5&interval=200"), cancellation: canceller) }.failure }
        #expect(error?.code == .cancelled)
    }

    /// curl sends a request again on a fresh connection when a reused one closes before any
    /// answer: an idempotent `PUT` is sent once more from the start of its data or file (a
    /// one-shot stream cannot be), a `POST` never twice.
    @Test(arguments: ClientStyle.allCases)
    func retriedConnectionRewindsDataAndFilesButNotStreams(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("rewind.bin")
        try Self.payload.write(to: file)
        let bodies: [(String, Request)] = [
            ("data", Request.put("upload-sink?close-if-reused=1").body(Self.payload)),
            ("file", Request.put("upload-sink?close-if-reused=1").body(fileAt: file)),
        ]
        for (kind, request) in bodies {
            let transport = Fixture.transport(server)
            let first = try await style.send(.get("echo"), through: transport).get().echo()
            // The server closes the reused connection on seeing the request: curl retries on a new
            // one, sending the body again from its start.
            let reply = try await style.send(request, through: transport).get().decode(UploadSinkReply.self)
            #expect(reply.connectionID != first.connectionID, "\(kind)")
            #expect(reply.sha256 == sha256Hex(Self.payload), "\(kind)")
        }
        let transport = Fixture.transport(server)
        _ = try await style.send(.get("echo"), through: transport).get()
        let error = await style.send(.put("upload-sink?close-if-reused=1").body(pulling: Self.chunks()), through: transport).failure
        #expect(error?.code == .bodyNotRewindable, "\(String(describing: error))")
        _ = try await style.send(.get("echo"), through: transport).get()
        let post = await style.send(.post("upload-sink?close-if-reused=1").body(Self.payload), through: transport).failure
        #expect(post?.code == .connectionLost, "\(String(describing: post))")
    }

    @Test(arguments: ClientStyle.allCases)
    func missingFileIsRefusedWithNothingSent(style: ClientStyle) async throws {
        let listener = try SilentListener()
        let error = await style.send(
            .post(listener.url).body(fileAt: URL(fileURLWithPath: "/nonexistent/upload.bin")), through: Transport()
        ).failure
        #expect(error?.code == .fileIO)
        #expect(listener.connectionAttempts() == 0)
    }

    @Test(arguments: ClientStyle.allCases)
    func serverClosingDuringTheUploadFailsOnce(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let error = await style.send(.post("upload-sink?close-after=500000").body(Self.payload), through: transport).failure
        #expect(error != nil)
        #expect([.connectionLost, .responseTruncated, .protocolError].contains(error?.code), "\(String(describing: error))")
        #expect(transport.inFlightCount == 0)
    }

    @Test(arguments: ClientStyle.allCases)
    func cancellingDuringAnUploadCompletesOnceAndStopsItsProducer(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let pulled = Mutex(0)
        let (started, signal) = AsyncStream<Void>.makeStream()
        // A source that never ends: only cancellation can finish this request.
        let request = Request.post("upload-sink").body { () -> Data? in
            if pulled.withLock({ $0 += 1; return $0 }) == 3 { signal.yield() }
            return Data(count: 64 << 10)
        }
        let completions = Mutex(0)
        let error: RequestError?
        switch style {
        case .blocking:
            let client = BlockingClient(transport: transport)
            let canceller = TransferCanceller()
            async let outcome = onWorkerThread {
                defer { completions.withLock { $0 += 1 } }
                return Result { () throws(RequestError) in try client.send(request, cancellation: canceller) }
            }
            _ = await started.first { _ in true }
            canceller.cancel()
            error = await outcome.failure
        case .async:
            let task = Task { () async throws(RequestError) -> Response in
                defer { completions.withLock { $0 += 1 } }
                return try await AsyncClient(transport: transport).send(request)
            }
            _ = await started.first { _ in true }
            task.cancel()
            error = await task.result.failure as? RequestError
        case .callback:
            let (outcomes, delivery) = AsyncStream<Result<Response, RequestError>>.makeStream()
            let task = CallbackClient(transport: transport).send(request) { result in
                completions.withLock { $0 += 1 }
                delivery.yield(result)
            }
            _ = await started.first { _ in true }
            task.cancel()
            error = await outcomes.first { _ in true }?.failure
        }
        #expect(error?.code == .cancelled)
        try await transport.waitUntilIdle()
        // The producer stops: no pull starts once the transfer is gone.
        let pulls = pulled.withLock { $0 }
        _ = try await style.send(.get("echo"), through: transport).get()
        #expect(pulled.withLock { $0 } <= pulls + 1)
        #expect(completions.withLock { $0 } == 1)
    }

    /// The payload in 100 KB pieces, from a pull closure.
    static func chunks() -> @Sendable () -> Data? {
        let offset = Mutex(0)
        return {
            offset.withLock { offset in
                guard offset < payload.count else { return nil }
                let end = min(offset + 100_000, payload.count)
                defer { offset = end }
                return payload.subdata(in: offset..<end)
            }
        }
    }

    /// The payload in 100 KB pieces, as an async sequence.
    static func sequence() -> AsyncStream<Data> {
        AsyncStream { continuation in
            for start in stride(from: 0, to: payload.count, by: 100_000) {
                continuation.yield(payload.subdata(in: start..<min(start + 100_000, payload.count)))
            }
            continuation.finish()
        }
    }
}

/// The failure of sending `request` in `style`, if any.
private func style(_ style: ClientStyle, _ request: Request, _ transport: Transport) async -> RequestError? {
    await style.send(request, through: transport).failure
}

/// The error a test body source throws.
struct SourceBroke: Error {}
