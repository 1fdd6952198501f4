import CurlBridge
import CurlBridgeTesting
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// `count` bytes where byte `i` is `UInt8(i % 251)`.
private func pattern(_ count: Int) -> Data {
    TestServer.patternBody(0..<count)
}

@Suite("Stubbed transport: bodies, timeouts, cancellation and the blocking guard")
struct StubTransferTests {
    @Test("A streamed response arrives in chunks, whole and in order, under backpressure")
    func streamingConsumesTheStubBody() async throws {
        let body = pattern(3 << 20)
        let transport = Transport(configuration: Configuration(baseURL: stubBaseURL)) { _ in StubResponse(body: body) }
        let client = AsyncClient(transport: transport)
        // A small buffer, so the body pauses and resumes several times.
        let streaming = try await client.stream(.get("media"), bufferLimits: BufferLimits(highWatermark: 128 << 10, lowWatermark: 32 << 10))
        var received = Data()
        var chunks = 0
        for try await chunk in streaming.body {
            received.append(chunk)
            chunks += 1
        }
        #expect(streaming.headerFields[.contentLength] == String(body.count))
        #expect(chunks > 1)
        #expect(received == body)
    }

    @Test("A download writes the stub's body to the file")
    func downloadWritesTheFile() async throws {
        let body = pattern(300_000)
        let transport = Transport(configuration: Configuration(baseURL: stubBaseURL)) { _ in StubResponse(body: body) }
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("stub-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }

        let download = try await AsyncClient(transport: transport).download(.get("file.bin"), to: destination)
        #expect(download.bytesWritten == Int64(body.count))
        #expect(try Data(contentsOf: destination) == body)
    }

    @Test("A streamed upload reaches the stub whole; progress reports the bytes sent")
    func streamedUploadIsReadWhole() async throws {
        let chunks = (0..<8).map { Data(repeating: UInt8($0), count: 100_000) }
        let received = Mutex<Data?>(nil)
        let transport = Transport(configuration: Configuration(baseURL: stubBaseURL)) { request in
            received.withLock { $0 = request.body }
            return StubResponse(status: .created)
        }
        let sent = Mutex<Int64>(0)
        let stream = AsyncStream<Data> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        let response = try await AsyncClient(transport: transport)
            .send(.put("blob").body(streaming: stream, length: 800_000)) { progress in sent.withLock { $0 = progress.bytesSent } }
        #expect(response.status == .created)
        #expect(received.withLock { $0 } == chunks.reduce(Data(), +))
        #expect(sent.withLock { $0 } == 800_000)
    }

    @Test("A stub slower than the request's total timeout fails it with totalTimedOut")
    func delayBeyondTheTimeoutTimesOut() async throws {
        let transport = Transport(configuration: Configuration(baseURL: stubBaseURL)) { _ in
            StubResponse().delayed(by: .seconds(3600))
        }
        let result = await ClientStyle.async.send(.get("slow").timeout(total: .milliseconds(50)), through: transport)
        #expect(result.failure?.code == .totalTimedOut)
    }

    @Test("A body above the in-memory cap fails with bodyTooLarge")
    func bodyCapApplies() async throws {
        var configuration = Configuration(baseURL: stubBaseURL)
        configuration.maximumBodySize = 1000
        let transport = Transport(configuration: configuration) { _ in StubResponse(body: pattern(1001)) }
        let result = await ClientStyle.callback.send(.get("big"), through: transport)
        #expect(result.failure?.code == .bodyTooLarge)
    }

    @Test("Cancelling a request the stub holds ends it with cancelled, exactly once, and frees the transport")
    func cancellationEndsTheExchange() async throws {
        let asked = AsyncStream<Void>.makeStream()
        let transport = Transport(configuration: Configuration(baseURL: stubBaseURL)) { _ in
            asked.continuation.yield()
            return StubResponse().delayed(by: .seconds(3600))
        }
        let completions = Mutex(0)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response, RequestError>, Never>) in
            let task = CallbackClient(transport: transport).send(.get("held")) { result in
                let first = completions.withLock { count in
                    count += 1
                    return count == 1
                }
                if first { continuation.resume(returning: result) }
            }
            Task {
                var iterator = asked.stream.makeAsyncIterator()
                _ = await iterator.next()
                task.cancel()
            }
        }
        #expect(outcome.failure?.code == .cancelled)
        await transport.shutdown()  // returns only once nothing is in flight
        #expect(completions.withLock { $0 } == 1)
    }

    @Test("Cancelling the task of an async send cancels the stubbed exchange")
    func taskCancellationReachesTheStub() async throws {
        let asked = AsyncStream<Void>.makeStream()
        let transport = Transport(configuration: Configuration(baseURL: stubBaseURL)) { _ in
            asked.continuation.yield()
            return StubResponse().delayed(by: .seconds(3600))
        }
        let client = AsyncClient(transport: transport)
        let sending = Task { () async throws(RequestError) -> Response in try await client.send(.get("held")) }
        var iterator = asked.stream.makeAsyncIterator()
        _ = await iterator.next()
        sending.cancel()
        let result = await sending.result
        #expect((result.failure as? RequestError)?.code == .cancelled)
    }

    @Test("The blocking guard still refuses a blocking call inside a task, stub or not")
    func blockingGuardStillApplies() async throws {
        let transport = Transport(configuration: Configuration(baseURL: stubBaseURL)) { _ in .text("never sent") }
        let client = BlockingClient(transport: transport)
        let result = Result { () throws(RequestError) in try client.send(.get("x")) }
        #expect(result.failure?.code == .blockingRefused)
    }

    @Test("A missing body file fails with fileIO before the stub is asked")
    func unreadableFileBody() async throws {
        let asked = Mutex(false)
        let transport = Transport(configuration: Configuration(baseURL: stubBaseURL)) { _ in
            asked.withLock { $0 = true }
            return .text("unexpected")
        }
        let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)")
        let result = await ClientStyle.blocking.send(.post("upload").body(fileAt: missing), through: transport)
        #expect(result.failure?.code == .fileIO)
        #expect(asked.withLock { $0 } == false)
    }
}
