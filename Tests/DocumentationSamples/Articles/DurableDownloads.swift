// The names DurableDownloads.md's samples assume.
import CurlBridge
import Foundation

struct DurableDownloadsSamples: Sendable {
    let transport: Transport
    let stateDirectory: URL
    let episodesDirectory: URL
    let episodeURLs: [String]
    let queue: DownloadQueue

    func showProgress(_ id: UInt64, _ progress: TransferProgress) {}
}
