// The names GettingStartedBlocking.md's samples assume (the first sample declares `transport`
// and `client`).
import CurlBridge
import Foundation

struct GettingStartedBlockingSamples: Sendable {
    let transport: Transport
    let client: BlockingClient
    let destination: URL
    func moveToWorkerThread() {}
    func showOffline() {}
    func showServerError(_ code: Int?) {}
}
