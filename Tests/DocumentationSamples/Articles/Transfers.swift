// The names Transfers.md's samples assume.
import CurlBridge
import Foundation

struct TransfersSamples: Sendable {
    let client: AsyncClient
    let destination: URL
    let expectedDigest: String
    let saved: URL
    let photo: URL
    let logLines: AsyncStream<Data>
    let player: Player
}

/// The reader's media player.
struct Player: Sendable {
    func append(_ chunk: Data) {}
}
