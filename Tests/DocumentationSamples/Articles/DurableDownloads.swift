// The names DurableDownloads.md's samples assume.
import CurlBridge
import Foundation

struct DurableDownloadsSamples: Sendable {
    let transport: Transport
    let stateDirectory: URL
    let episodesDirectory: URL
    let episodeURLs: [String]
    let queue: DownloadQueue
    let isoURL: String
    let isoDestination: URL
    let isoSHA256: String
    let signer: URLSigner

    func showProgress(_ id: UInt64, _ progress: TransferProgress) {}
}

/// Signs a URL afresh, as a program using signed URLs would.
struct URLSigner: Sendable {
    func signedRequest(for url: String) -> Request? { .get(url + "?signature=fresh") }
}
