@testable import CurlBridge
import CurlBridgeTestServer
import Testing

/// Where a download's checkpoints fall (``DownloadBodyState/pieceWritten(_:checkpointInterval:)``):
/// at the end of the piece that completes an interval since the last one, so on piece boundaries,
/// not on multiples of the interval. What a test may count on whatever the pieces: checkpoints at
/// least an interval apart, and less than an interval written past the last one.
@Suite("Download checkpoints: spacing whatever the pieces")
struct CheckpointSpacingTests {
    /// The checkpoint interval of the queue tests.
    static let interval: Int64 = 65_536

    /// The checkpoints of a download written in `pieces`, and the bytes written past the last.
    static func checkpoints(of pieces: [Int]) -> (checkpoints: [Int64], unflushed: Int64) {
        var state = DownloadBodyState()
        _ = state.headArrived(MachineFixture.head(200, [(.eTag, "\"v1\""), (.contentLength, "500000")]), acceptable: true)
        var checkpoints: [Int64] = []
        for piece in pieces {
            guard state.pieceWritten(piece, checkpointInterval: interval) else { continue }
            state.flushedAll()
            checkpoints.append(state.flushed)
        }
        return (checkpoints, state.written - state.flushed)
    }

    @Test("The pieces of a loaded run leave the 300,000 bytes before a stall with three checkpoints, the last below 262,144")
    func loadedRunsPiecesDrift() {
        // libcurl's pieces of a 300,000-byte body on a loaded machine, as a failed run of
        // DownloadQueueTests recorded them: 16,173 (16 KiB less the head's 211 bytes)
        // and two short reads (15,059, 13,312) among 16 KiB ones.
        let pieces = [16_384, 16_173, 16_384, 16_384, 16_384, 16_384, 15_059, 16_384, 16_384, 16_384,
                      16_384, 16_384, 13_312, 16_384, 16_384, 16_384, 16_384, 16_384, 9_696]
        #expect(pieces.reduce(0, +) == 300_000)
        let (checkpoints, unflushed) = Self.checkpoints(of: pieces)
        #expect(checkpoints == [81_709, 162_304, 241_152], "no fourth checkpoint, none at a multiple of 64 KiB")
        #expect(unflushed == 58_848)
    }

    @Test("Whatever the pieces, checkpoints are at least an interval apart and less than one is past the last")
    func spacingHoldsForAnyPieces() {
        var random = SeededGenerator(seed: 0x3737_0037)
        for _ in 0..<200 {
            // libcurl hands over at most CURL_MAX_WRITE_SIZE (16 KiB) per call.
            var pieces: [Int] = []
            var total = 0
            while total < 300_000 {
                let piece = min(Int.random(in: 1...16_384, using: &random), 300_000 - total)
                pieces.append(piece)
                total += piece
            }
            let (checkpoints, unflushed) = Self.checkpoints(of: pieces)
            #expect(zip([0] + checkpoints, checkpoints).allSatisfy { $1 - $0 >= Self.interval }, "\(checkpoints)")
            #expect(unflushed < Self.interval && (checkpoints.last ?? 0) > 300_000 - Self.interval, "\(checkpoints)")
        }
    }
}
