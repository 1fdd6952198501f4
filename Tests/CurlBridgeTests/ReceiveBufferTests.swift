import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Which receive buffer curl reads a body with, observed in curl's own trace: each `data_in`
/// record is one read from the socket, at most the buffer's size. A body collected in memory is
/// read 64 KiB at most at a time, whatever the configured ``Configuration/receiveBufferSize``,
/// until the transport has collected a larger body; a stream and a download keep the configured size.
@Suite(.hangGuard) struct ReceiveBufferTests {
    /// The largest buffer a collected body is read with.
    static let collectingLimit = 64 << 10

    /// A transport with the default 512 KiB receive buffer, tracing into `capture`.
    static func tracedTransport(_ capture: LogCapture) async throws -> Transport {
        Fixture.transport(try await Fixture.server()) { $0.logger = capture.logger(level: .trace) }
    }

    /// The size of every read curl traced, in order.
    static func reads(_ capture: LogCapture) -> [Int] {
        capture.lines.compactMap { line in
            line.metadata["curlbridge.curl_info"] == "data_in" ? line.metadata["curlbridge.bytes"].flatMap { Int($0) } : nil
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func collectedBodyLargerThanTheBufferArrivesWhole(style: ClientStyle) async throws {
        let capture = LogCapture()
        let transport = try await Self.tracedTransport(capture)
        #expect(transport.configuration.receiveBufferSize == 512 << 10)
        let response = try await style.send(.get("bytes/3000000"), through: transport).get()
        expectSameBytes(response.body, TestServer.patternBody(0..<3_000_000))
        let reads = Self.reads(capture)
        #expect(reads.reduce(0, +) == 3_000_000)
        #expect(reads.allSatisfy { $0 <= Self.collectingLimit }, "largest read \(reads.max() ?? 0)")
    }

    @Test(arguments: ClientStyle.allCases)
    func aLargeCollectedBodyBringsTheConfiguredBufferBackForTheNext(style: ClientStyle) async throws {
        let capture = LogCapture()
        let transport = try await Self.tracedTransport(capture)
        let first = try await style.send(.get("bytes/8000000"), through: transport).get()
        #expect(first.body.count == 8_000_000)
        let firstReads = Self.reads(capture)
        #expect(firstReads.allSatisfy { $0 <= Self.collectingLimit }, "largest read \(firstReads.max() ?? 0)")
        // The engine saw a collected body larger than 64 KiB: the next one gets the configured size.
        let second = try await style.send(.get("bytes/8000000"), through: transport).get()
        expectSameBytes(second.body, TestServer.patternBody(0..<8_000_000))
        let secondReads = Self.reads(capture).dropFirst(firstReads.count)
        #expect(secondReads.reduce(0, +) == 8_000_000)
        #expect(secondReads.contains { $0 > Self.collectingLimit }, "largest read \(secondReads.max() ?? 0)")
    }

    @Test(arguments: ClientStyle.allCases)
    func smallerConfiguredBufferAppliesToCollectedBodies(style: ClientStyle) async throws {
        let capture = LogCapture()
        let transport = Fixture.transport(try await Fixture.server()) {
            $0.logger = capture.logger(level: .trace)
            $0.receiveBufferSize = 16 << 10
        }
        let response = try await style.send(.get("bytes/1000000"), through: transport).get()
        expectSameBytes(response.body, TestServer.patternBody(0..<1_000_000))
        let reads = Self.reads(capture)
        #expect(reads.reduce(0, +) == 1_000_000)
        #expect(reads.allSatisfy { $0 <= 16 << 10 }, "largest read \(reads.max() ?? 0)")
    }

    @Test(arguments: ClientStyle.allCases)
    func streamKeepsTheConfiguredBuffer(style: ClientStyle) async throws {
        let capture = LogCapture()
        let transport = try await Self.tracedTransport(capture)
        // A small stream buffer pauses the transfer again and again; the socket fills meanwhile,
        // so the read after each resume takes as much as curl's buffer holds.
        let limits = BufferLimits(highWatermark: 64 << 10, lowWatermark: 16 << 10)
        let outcome = await style.stream(.get("bytes/3000000"), bufferLimits: limits, through: transport)
        #expect(outcome.error == nil)
        expectSameBytes(outcome.body, TestServer.patternBody(0..<3_000_000))
        let reads = Self.reads(capture)
        #expect(reads.reduce(0, +) == 3_000_000)
        #expect(reads.contains { $0 > Self.collectingLimit }, "largest read \(reads.max() ?? 0)")
        #expect(reads.allSatisfy { $0 <= 512 << 10 })
    }

    @Test(arguments: ClientStyle.allCases)
    func downloadKeepsTheConfiguredBuffer(style: ClientStyle) async throws {
        let capture = LogCapture()
        let transport = try await Self.tracedTransport(capture)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("resource.bin")
        let response = try await style.download(.get("resource/8000000"), to: destination, through: transport).get()
        #expect(response.bytesWritten == 8_000_000)
        let reads = Self.reads(capture)
        #expect(reads.reduce(0, +) == 8_000_000)
        #expect(reads.contains { $0 > Self.collectingLimit }, "largest read \(reads.max() ?? 0)")
        #expect(reads.allSatisfy { $0 <= 512 << 10 })
    }
}
