@testable import CurlBridge
import Foundation
import Testing

/// A plain send's body in memory: which blocks come from the transport's pool, that a block goes
/// back when its `Data` is released and serves the next body of its size, and that the next body
/// sees only its own bytes, never the bytes an earlier body left in the block.
@Suite struct MemoryBodySinkTests {
    private static func sink(_ pool: ChunkPool, cap: Int = 128 << 20) throws -> MemoryBodySink {
        var configuration = Configuration()
        configuration.maximumBodySize = cap
        let prepared = try Request.get("http://127.0.0.1/body").prepared(with: RequestDefaults(configuration)).get()
        return MemoryBodySink(for: prepared, pool: pool)
    }

    /// `body` collected by `sink`, announced with `declaredLength` (none when `nil`), in pieces of
    /// at most 16 KiB as curl gives them.
    private static func collect(_ body: Data, declaredLength: Int?, into sink: MemoryBodySink) -> Data {
        #expect(sink.refusal(declaredLength: declaredLength.map(Int64.init), status: 200) == nil)
        for start in stride(from: 0, to: body.count, by: 16 << 10) {
            let piece = body[start..<min(body.count, start + (16 << 10))]
            let verdict = piece.withUnsafeBytes { sink.write($0) }
            guard verdict.isAccepted else {
                Issue.record("a piece was refused: \(verdict)")
                return Data()
            }
        }
        return sink.take()
    }

    private static func address(_ data: Data) -> UnsafeRawPointer? {
        data.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func aReleasedBlockServesTheNextBodyOfItsSizeWithOnlyThatBodysBytes() throws {
        let pool = ChunkPool(budget: 1 << 20)
        var secret: Data? = Self.collect(Data(repeating: 0xA5, count: 65_536), declaredLength: 65_536, into: try Self.sink(pool))
        let secretAddress = Self.address(secret!)
        secret = nil
        #expect(pool.keptBytes == 65_536)

        let next = Self.collect(Data(repeating: 0x11, count: 60_000), declaredLength: 60_000, into: try Self.sink(pool))

        // The same block, so that what follows reads where the earlier body was.
        #expect(Self.address(next) == secretAddress)
        #expect(next.count == 60_000)
        #expect(next.withUnsafeBytes { $0.count } == 60_000)
        #expect(next.allSatisfy { $0 == 0x11 })
        var grown = next
        grown.count = 65_536
        #expect(grown[60_000...].allSatisfy { $0 == 0 }, "the earlier body's bytes past this one's length")
        #expect(!grown.contains(0xA5))
        var appended = next
        appended.append(contentsOf: [1, 2, 3])
        #expect(appended.count == 60_003)
        #expect(!appended.contains(0xA5))
    }

    @Test func theBlockGoesBackOnlyWhenTheLastCopyOfTheBodyIsReleased() throws {
        let pool = ChunkPool(budget: 1 << 20)
        var body: Data? = Self.collect(Data(repeating: 7, count: 40_000), declaredLength: 40_000, into: try Self.sink(pool))
        var slice: Data? = body![100..<200]
        body = nil
        #expect(pool.keptBytes == 0)
        #expect(slice!.allSatisfy { $0 == 7 })
        slice = nil
        #expect(pool.keptBytes == MemoryBodySink.blockCapacity(for: 40_000))
    }

    @Test func aBodyWithoutALengthFillsOneBlockAndASmallOneGetsItsOwnStorage() throws {
        let pool = ChunkPool(budget: 1 << 20)
        let pattern = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var body: Data? = Self.collect(pattern, declaredLength: nil, into: try Self.sink(pool))
        #expect(body == pattern)
        body = nil
        #expect(pool.keptBytes == MemoryBodySink.undeclaredFirstBlock)

        let small = Self.collect(Data(repeating: 3, count: 100), declaredLength: nil, into: try Self.sink(pool))
        #expect(small == Data(repeating: 3, count: 100))
        #expect(pool.keptBytes == MemoryBodySink.undeclaredFirstBlock, "the block went back at once")
    }

    @Test func aBodyOutgrowingItsBlocksKeepsEveryByte() throws {
        let pool = ChunkPool(budget: 4 << 20)
        for count in [200_000, 1_500_000] {
            let pattern = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
            #expect(Self.collect(pattern, declaredLength: nil, into: try Self.sink(pool)) == pattern)
            #expect(Self.collect(pattern, declaredLength: count / 2, into: try Self.sink(pool)) == pattern)
        }
    }

    @Test func smallAndVeryLargeBodiesAreNotPooled() throws {
        let pool = ChunkPool(budget: 8 << 20)
        _ = Self.collect(Data(repeating: 1, count: 100), declaredLength: 100, into: try Self.sink(pool))
        _ = Self.collect(Data(repeating: 2, count: 2 << 20), declaredLength: 2 << 20, into: try Self.sink(pool))
        #expect(pool.keptBytes == 0)
    }

    @Test func aSinkDroppedBeforeItsBodyIsTakenGivesItsBlockBack() throws {
        let pool = ChunkPool(budget: 1 << 20)
        let sink = try Self.sink(pool)
        #expect(sink.refusal(declaredLength: 30_000, status: 200) == nil)
        #expect(pool.keptBytes == 0)
        _ = consume sink
        #expect(pool.keptBytes == MemoryBodySink.blockCapacity(for: 30_000))
    }

    @Test func theCapStillHolds() throws {
        let pool = ChunkPool(budget: 1 << 20)
        let sink = try Self.sink(pool, cap: 20_000)
        #expect(sink.refusal(declaredLength: 20_001, status: 200)?.code == .bodyTooLarge)
        let undeclared = try Self.sink(pool, cap: 20_000)
        let piece = Data(repeating: 9, count: 16_384)
        #expect(piece.withUnsafeBytes { undeclared.write($0) }.isAccepted)
        #expect(piece.withUnsafeBytes { undeclared.write($0) }.failure?.code == .bodyTooLarge)
    }

    @Test func blockSizesStepByAQuarterOfAPowerOfTwo() {
        let expected = [16_384: 16_384, 16_385: 20_480, 40_000: 40_960, 60_000: 65_536, 65_536: 65_536,
                        65_537: 81_920, 1 << 20: 1 << 20]
        for (size, capacity) in expected {
            #expect(MemoryBodySink.blockCapacity(for: size) == capacity, "\(size)")
        }
    }
}

extension BodyChunkVerdict {
    /// The error of a `.fail`, else `nil`.
    fileprivate var failure: RequestError? {
        if case .fail(let error) = self { error } else { nil }
    }

    /// Whether the piece was taken.
    fileprivate var isAccepted: Bool {
        if case .accept = self { true } else { false }
    }
}
