import CurlBridge
import CurlBridgeOpenAPI
import CurlBridgeTestServer
import Foundation
import OpenAPIRuntime
import Synchronization
import Testing

/// Cancelling the calling task cancels the transfer; failures reach the caller as the runtime's
/// `ClientError` with the ``RequestError`` as its `underlyingError`.
@Suite(.hangGuard) struct OpenAPICancellationAndErrorTests {
    /// The `RequestError` inside the `ClientError` that `operation` throws.
    private func requestError(_ operation: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async throws -> RequestError {
        let error = await #expect(throws: ClientError.self, sourceLocation: sourceLocation) { try await operation() }
        return try #require(error?.underlyingError as? RequestError, sourceLocation: sourceLocation)
    }

    @Test(arguments: Wire.allCases)
    func cancellingTheTaskBeforeTheHeadCancelsTheTransfer(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        let call = Task { try await fixture.client.neverRespond() }
        try await fixture.waitUntilInFlight(1)
        call.cancel()
        let failure = try await requestError { _ = try await call.value }
        #expect(failure.code == .cancelled)
        try await fixture.waitUntilIdle()
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func cancellingTheTaskReadingTheBodyCancelsTheTransfer(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        let (firstChunk, arrived) = AsyncStream<Void>.makeStream()
        let reading = Task {
            let body = try await fixture.client.drip(query: .init(bytes: 1000, interval: 50)).ok.body.binary
            var iterator = body.makeAsyncIterator()
            _ = try await iterator.next()
            arrived.yield()
            while try await iterator.next() != nil {}
        }
        for await _ in firstChunk { break }
        reading.cancel()
        let error = await #expect(throws: RequestError.self) { try await reading.value }
        #expect(error?.code == .cancelled)
        try await fixture.waitUntilIdle()
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func droppingTheBodyBeforeItsEndCancelsTheTransfer(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        do {
            let body = try await fixture.client.drip(query: .init(bytes: 1000, interval: 50)).ok.body.binary
            var iterator = body.makeAsyncIterator()
            #expect(try await iterator.next()?.first == UInt8(ascii: "*"))
        }
        try await fixture.waitUntilIdle()
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func cancellingTheTaskDuringTheUploadCancelsTheTransfer(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        // A body that never ends: the upload waits for more until the task is cancelled.
        let (chunks, producer) = AsyncStream<HTTPBody.ByteChunk>.makeStream()
        producer.yield(ArraySlice(repeating: 1, count: 1000))
        let call = Task { try await fixture.client.upload(body: .binary(HTTPBody(chunks, length: .unknown))) }
        try await fixture.waitUntilInFlight(1)
        call.cancel()
        let failure = try await requestError { _ = try await call.value }
        #expect(failure.code == .cancelled)
        try await fixture.waitUntilIdle()
        producer.finish()
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func refusedConnectionIsConnectFailed(wire: Wire) async throws {
        let port = try RefusingPort()
        let fixture = try await OpenAPIFixture(wire, serverURL: URL(string: "https://127.0.0.1:\(port.port)/")!)
        let failure = try await requestError { _ = try await fixture.client.getJSON() }
        #expect(failure.code == .connectFailed)
        #expect(failure.url == "https://127.0.0.1:\(port.port)/json")
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func perOperationTimeoutIsTotalTimedOut(wire: Wire) async throws {
        let operations = Mutex<[String]>([])
        let configuration = CurlBridgeClientTransport.Configuration { request, operationID in
            operations.withLock { $0.append(operationID) }
            return operationID == "neverRespond" ? request.timeout(total: .milliseconds(300)) : request
        }
        let fixture = try await OpenAPIFixture(wire, configuration: configuration)
        let failure = try await requestError { _ = try await fixture.client.neverRespond() }
        #expect(failure.code == .totalTimedOut)
        #expect(operations.withLock { $0 } == ["neverRespond"])
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func failingBodySequenceIsBodySourceFailed(wire: Wire) async throws {
        struct ProducerFailure: Error {}
        let fixture = try await OpenAPIFixture(wire)
        let chunks = AsyncThrowingStream<HTTPBody.ByteChunk, any Error> { producer in
            producer.yield(ArraySlice(repeating: 2, count: 1000))
            producer.finish(throwing: ProducerFailure())
        }
        let failure = try await requestError {
            _ = try await fixture.client.upload(body: .binary(HTTPBody(chunks, length: .unknown)))
        }
        #expect(failure.code == .bodySourceFailed)
        #expect(failure.underlying is ProducerFailure)
        await fixture.shutdown()
    }
}
