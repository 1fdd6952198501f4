@testable import CurlBridge
import Foundation
import Testing

/// The pool behind streamed chunks and the chunks that gather curl's pieces: a chunk holds exactly
/// the bytes appended, its buffer comes back when its `Data` is released and serves the next chunk
/// of its size, the pool never keeps more than its budget, and chunk sizes grow within bounds.
@Suite struct ChunkPoolTests {
    /// `count` bytes counting up from `seed`.
    private static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0) &+ seed }
    }

    /// A chunk of `pool` holding `pieces`, handed out as a `Data`.
    private static func data(of pieces: [[UInt8]], capacity: Int, from pool: ChunkPool) -> Data {
        var chunk = GatheredChunk(capacity: capacity, from: pool)
        for piece in pieces {
            #expect(chunk.hasRoom(for: piece.count))
            piece.withUnsafeBytes { chunk.append($0) }
        }
        return pool.data(chunk.buffer, count: chunk.count, capacity: chunk.capacity)
    }

    @Test func aChunkHoldsItsPiecesInOrder() {
        let pool = ChunkPool(budget: 1 << 20)
        let pieces = [Self.bytes(16_384, seed: 1), Self.bytes(100, seed: 2), Self.bytes(16_000, seed: 3)]
        let data = Self.data(of: pieces, capacity: 64 << 10, from: pool)
        #expect(data == Data(pieces.joined()))
    }

    @Test func aChunkSaysWhenAPieceNoLongerFits() {
        let pool = ChunkPool(budget: 1 << 20)
        var chunk = GatheredChunk(capacity: 16 << 10, from: pool)
        Self.bytes(10_000, seed: 0).withUnsafeBytes { chunk.append($0) }
        #expect(chunk.hasRoom(for: 6_384))
        #expect(!chunk.hasRoom(for: 6_385))
        pool.recycle(chunk.buffer, capacity: chunk.capacity)
    }

    @Test func aReleasedBufferServesTheNextChunkOfItsCapacity() {
        let pool = ChunkPool(budget: 1 << 20)
        var first: Data? = Self.data(of: [Self.bytes(40_000, seed: 1)], capacity: 64 << 10, from: pool)
        let firstAddress = first!.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
        #expect(pool.keptBytes == 0)
        first = nil
        #expect(pool.keptBytes == 64 << 10)
        let second = GatheredChunk(capacity: 64 << 10, from: pool)
        #expect(UnsafeRawPointer(second.buffer) == firstAddress)
        #expect(pool.keptBytes == 0)
        let other = GatheredChunk(capacity: 128 << 10, from: pool)
        #expect(UnsafeRawPointer(other.buffer) != firstAddress)
        pool.recycle(second.buffer, capacity: second.capacity)
        pool.recycle(other.buffer, capacity: other.capacity)
        #expect(pool.keptBytes == 192 << 10)
    }

    @Test func thePoolKeepsNoMoreThanItsBudget() {
        let pool = ChunkPool(budget: 128 << 10)
        var chunks = (0..<5).map { index in Self.data(of: [Self.bytes(60_000, seed: UInt8(index))], capacity: 64 << 10, from: pool) }
        #expect(chunks.count == 5)
        chunks.removeAll()
        #expect(pool.keptBytes == 128 << 10)  // two 64 KiB buffers kept, three freed
    }

    @Test func aChunkMayOutliveTheLastReferenceToItsPool() {
        var pool: ChunkPool? = ChunkPool(budget: 1 << 20)
        let data = Self.data(of: [Self.bytes(70_000, seed: 4)], capacity: 128 << 10, from: pool!)
        pool = nil
        #expect(data == Data(Self.bytes(70_000, seed: 4)))
    }

    @Test func chunksStartSmallAndDoubleUpToTheirMaximum() {
        #expect(GatheredChunk.capacity(forPiece: 100, after: 0) == 16 << 10)
        #expect(GatheredChunk.capacity(forPiece: 16_384, after: 16 << 10) == 32 << 10)
        #expect(GatheredChunk.capacity(forPiece: 16_384, after: 128 << 10) == 256 << 10)
        #expect(GatheredChunk.capacity(forPiece: 16_384, after: 256 << 10) == 256 << 10)
        // A piece larger than the maximum still fits its chunk.
        #expect(GatheredChunk.capacity(forPiece: 300_000, after: 256 << 10) == 512 << 10)
    }
}
