@testable import CurlBridge
import Foundation
import Testing

/// When a stream's buffer wakes its consumer: once per loop turn for the chunks the turn put in
/// (never per piece), at once for the head and the end; and what a turn put in is there, whole
/// and in order, whether the consumer waited for the announcement or looked before it.
@Suite struct ResponseBodyBufferAnnouncementTests {
    /// Counts the buffer's wake-ups.
    private final class Wakes: Sendable {
        private let count = PosixLock(0)

        var total: Int { count.withLock { $0 } }

        func record() {
            count.withLock { $0 += 1 }
        }
    }

    /// A buffer whose arrival handler counts into `wakes`.
    private static func buffer(counting wakes: Wakes) -> ResponseBodyBuffer {
        let buffer = ResponseBodyBuffer(limits: BufferLimits())
        buffer.setArrivalHandler { wakes.record() }
        return buffer
    }

    /// Writes `count` pieces of `size` bytes, each filled with its index; returns what was written.
    private static func writePieces(_ count: Int, of size: Int, to buffer: ResponseBodyBuffer) -> Data {
        var written = Data()
        for index in 0..<count {
            let piece = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: size)
            guard case .accept = piece.withUnsafeBytes({ buffer.write($0) }) else {
                Issue.record("piece \(index) was not accepted")
                return written
            }
            written.append(contentsOf: piece)
        }
        return written
    }

    /// Every chunk waiting, in order, joined.
    private static func takeChunks(from buffer: ResponseBodyBuffer) -> Data {
        var taken = Data()
        while case .chunk(let data)? = buffer.take() { taken.append(data) }
        return taken
    }

    @Test func aTurnsPiecesWakeTheConsumerOnceWhenTheTurnEnds() {
        let wakes = Wakes()
        let buffer = Self.buffer(counting: wakes)
        let written = Self.writePieces(40, of: 16 << 10, to: buffer)
        #expect(wakes.total == 0)
        #expect(buffer.hasItem)
        buffer.turnDidEnd()
        #expect(wakes.total == 1)
        buffer.turnDidEnd()
        #expect(wakes.total == 1, "a turn that put nothing in wakes no one")
        #expect(Self.takeChunks(from: buffer) == written)
    }

    @Test func eachTurnThatPutsAChunkInAnnouncesIt() {
        let wakes = Wakes()
        let buffer = Self.buffer(counting: wakes)
        var written = Data()
        for turn in 1...3 {
            written.append(Self.writePieces(3, of: 10_000, to: buffer))
            buffer.turnDidEnd()
            #expect(wakes.total == turn)
            #expect(Self.takeChunks(from: buffer) == written)
            written = Data()
        }
    }

    @Test func aPieceThatJoinsAnUnannouncedChunkIsTakenWithIt() {
        let wakes = Wakes()
        let buffer = Self.buffer(counting: wakes)
        var written = Self.writePieces(1, of: 1_000, to: buffer)
        // A consumer that looks before the announcement takes the chunk as it is.
        #expect(Self.takeChunks(from: buffer) == written)
        written = Self.writePieces(2, of: 1_000, to: buffer)
        buffer.turnDidEnd()
        #expect(wakes.total == 1)
        // The second piece joined the first one's chunk: one chunk holds both.
        guard case .chunk(let data)? = buffer.take() else {
            Issue.record("the turn's chunk is there")
            return
        }
        #expect(data == written)
        #expect(!buffer.hasItem)
    }

    @Test func aWaitingTaskResumesWhenTheTurnEnds() async throws {
        let buffer = ResponseBodyBuffer(limits: BufferLimits())
        async let next = buffer.nextItem()
        try await waitFor("the task to wait for an item") { buffer.hasWaitingTask }
        let written = Self.writePieces(3, of: 2_000, to: buffer)
        #expect(buffer.hasWaitingTask, "a piece alone does not wake the task")
        buffer.turnDidEnd()
        guard case .chunk(let data) = await next else {
            Issue.record("the task resumed with the chunk")
            return
        }
        #expect(data == written)
    }

    @Test func theHeadAndTheEndWakeTheConsumerAtOnce() {
        let wakes = Wakes()
        let buffer = Self.buffer(counting: wakes)
        let events = buffer.events(progress: nil)
        let head = ResponseHead(status: .ok, headerFields: [:], httpVersion: .http1_1, url: "http://127.0.0.1/")
        #expect(events.onResponseHead?(head) == nil)
        #expect(wakes.total == 1)
        let written = Self.writePieces(2, of: 5_000, to: buffer)
        events.onComplete(.failure(RequestError(.cancelled, "the test ended it")))
        #expect(wakes.total == 2, "the end announces the chunks before it")
        buffer.turnDidEnd()
        #expect(wakes.total == 2, "nothing is left to announce after the end")
        guard case .head? = buffer.take() else {
            Issue.record("the head comes first")
            return
        }
        #expect(Self.takeChunks(from: buffer) == written)
        guard case .end(.failure(let error))? = buffer.take() else {
            Issue.record("the end comes last")
            return
        }
        #expect(error.code == .cancelled)
    }
}
