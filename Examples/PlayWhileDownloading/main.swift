// Play while downloading: a streamed response feeds a consumer — here a fake media player that
// "plays" 64 KiB frames at its own pace and checks every byte — while the download is still
// running. Backpressure keeps the two together: when the player falls behind, the bounded buffer
// fills, curl pauses the transfer, and it resumes once the player has caught up, so memory stays
// bounded however large the file and however slow the player. (NSURLSession's data delegate
// `didReceiveData`, or AVPlayer's progressive download, without an unbounded buffer.)
//
//   swift run PlayWhileDownloading     against the embedded loopback server (no network)
//
// Exits 1 if a byte differs from what the server sent or the download ran further ahead of the
// player than the buffer allows.
import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization

/// The consumer: cuts the stream into frames and "plays" each one, checking it against the
/// server's `/resource/N` pattern (byte `i` is `(i + 1) % 251`).
struct Player {
    static let frameSize = 64 << 10
    private(set) var played = 0
    private(set) var framesPlayed = 0
    private(set) var mismatches = 0
    private var pending = Data()

    mutating func append(_ chunk: Data) async {
        pending.append(chunk)
        while pending.count >= Self.frameSize { await play(pending.prefix(Self.frameSize)) }
    }

    mutating func finish() async {
        if !pending.isEmpty { await play(pending) }
    }

    private mutating func play(_ frame: Data) async {
        for byte in frame {
            if byte != UInt8((played + 1) % 251) { mismatches += 1 }
            played += 1
        }
        pending.removeFirst(frame.count)
        framesPlayed += 1
        try? await Task.sleep(for: .milliseconds(2))  // one frame's playing time
    }
}

let length = 8_000_000
let limits = BufferLimits(highWatermark: 256 << 10, lowWatermark: 64 << 10)
let server = try await TestServer.start()
let transport = Transport(configuration: Configuration(baseURL: server.httpURL))
let client = AsyncClient(transport: transport)

// How far the download got ahead of the player, measured at each progress report: the bytes
// received then, less the bytes the player had taken by the time the report is read (never more
// than the truth).
let takenSoFar = Atomic<Int>(0)
let furthestAhead = Atomic<Int>(0)
let streamed = try await client.stream(.get("resource/\(length)"), bufferLimits: limits) { progress in
    let ahead = Int(progress.bytesReceived) - takenSoFar.load(ordering: .relaxed)
    furthestAhead.max(ahead, ordering: .relaxed)
}
print("response \(streamed.status.code), \(streamed.headerFields[.contentLength] ?? "?") bytes announced; playing as they arrive")

/// Plays `body` as it arrives; the next chunk is read only once the player wants it.
func play(_ body: ResponseBody) async throws -> Player {
    var player = Player()
    for try await chunk in body {
        takenSoFar.add(chunk.count, ordering: .relaxed)
        await player.append(chunk)
    }
    await player.finish()
    return player
}

let player = try await play(streamed.body)
await transport.shutdown()
try await server.shutdown()

// Ahead of the player: the buffer's high watermark, plus the chunk curl was delivering when the
// buffer filled (it holds it until there is room) and one receive buffer.
let allowance = limits.highWatermark + 2 * transport.configuration.receiveBufferSize
print("played \(player.played) bytes in \(player.framesPlayed) frames, \(player.mismatches) wrong")
print("the download was at most \(furthestAhead.load(ordering: .relaxed)) bytes ahead of the player (allowed: \(allowance))")
guard player.played == length, player.mismatches == 0, furthestAhead.load(ordering: .relaxed) <= allowance else {
    print("FAILED")
    exit(1)
}
print("ok")
