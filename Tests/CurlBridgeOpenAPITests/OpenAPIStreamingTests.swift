import CurlBridge
import CurlBridgeOpenAPI
import CurlBridgeTestServer
import Foundation
import OpenAPIRuntime
import Testing

/// Bodies that stream both ways through the generated client: several MiB uploaded from an
/// `AsyncSequence` and downloaded chunk by chunk, never held whole.
@Suite(.hangGuard) struct OpenAPIStreamingTests {
    static let size = 6 << 20

    @Test(arguments: Wire.allCases, [true, false])
    func uploadFromAnAsyncSequenceArrivesWhole(wire: Wire, lengthIsKnown: Bool) async throws {
        let fixture = try await OpenAPIFixture(wire)
        let upload = GeneratedUpload(count: Self.size, chunkSize: 100_000)
        let body = HTTPBody(upload, length: lengthIsKnown ? .known(Int64(Self.size)) : .unknown, iterationBehavior: .single)
        let reply = try await fixture.client.upload(body: .binary(body)).ok.body.json
        #expect(reply.method == "PUT")
        #expect(reply.length == Self.size)
        #expect(reply.sha256 == upload.sha256)
        #expect(reply.httpVersion == wire.serverName)
        #expect(reply.contentLength == (lengthIsKnown ? String(Self.size) : nil))
        if wire == .http1 {
            #expect(reply.transferEncoding == (lengthIsKnown ? nil : "chunked"))
        }
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func uploadIsSentWhileItIsProduced(wire: Wire) async throws {
        // A body that never ends: only a transport that sends it as it is made gets 1 MiB of it to
        // the server, which then closes the connection (HTTP/2: resets the stream) unanswered.
        let fixture = try await OpenAPIFixture(wire)
        let endless = HTTPBody(GeneratedUpload(count: .max, chunkSize: 64 << 10), length: .unknown, iterationBehavior: .single)
        let error = await #expect(throws: ClientError.self) {
            try await fixture.client.upload(query: .init(closeAfter: 1 << 20), body: .binary(endless))
        }
        let failure = try #require(error?.underlyingError as? RequestError)
        #expect([.connectionLost, .responseTruncated, .protocolError].contains(failure.code), "\(failure)")
        try await fixture.waitUntilIdle()
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func downloadIsReadChunkByChunk(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        let body = try await fixture.client.download(path: .init(size: Int64(Self.size))).ok.body.binary
        #expect(body.length == .known(Int64(Self.size)))
        var offset: Int64 = 0
        var chunks = 0
        var mismatches = 0
        for try await chunk in body {
            if !ExpectedBytes.isResource(chunk, at: offset) { mismatches += 1 }
            offset += Int64(chunk.count)
            chunks += 1
        }
        #expect(offset == Int64(Self.size))
        #expect(mismatches == 0)
        #expect(chunks > 1)
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func downloadOfUnknownLengthIsReadChunkByChunk(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        let body = try await fixture.client.downloadChunked(path: .init(size: Int64(Self.size))).ok.body.binary
        #expect(body.length == .unknown)
        var offset: Int64 = 0
        var mismatches = 0
        for try await chunk in body {
            if !ExpectedBytes.isPattern(chunk, at: offset) { mismatches += 1 }
            offset += Int64(chunk.count)
        }
        #expect(offset == Int64(Self.size))
        #expect(mismatches == 0)
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func downloadArrivesBeforeItsTransferIsComplete(wire: Wire) async throws {
        // The server sends 300 KB of 6 MiB and then nothing: only a streamed body gets them to the
        // reader. A server of its own, as the core's streaming tests use for this route.
        let server = try await TestServer.start()
        let fixture = try await OpenAPIFixture(wire, server: server)
        let body = try await fixture.client.download(
            path: .init(size: Int64(Self.size)), query: .init(stallAfter: 300_000)
        ).ok.body.binary
        var received: Int64 = 0
        var mismatches = 0
        var iterator = body.makeAsyncIterator()
        while received < 300_000, let chunk = try await iterator.next() {
            if !ExpectedBytes.isResource(chunk, at: received) { mismatches += 1 }
            received += Int64(chunk.count)
        }
        #expect(received == 300_000)
        #expect(mismatches == 0)
        fixture.transport.cancelAll()
        await #expect(throws: RequestError.self) { while try await iterator.next() != nil {} }
        await fixture.shutdown()
        try await server.shutdown()
    }
}
