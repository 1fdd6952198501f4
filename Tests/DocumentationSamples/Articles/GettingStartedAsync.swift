// The names GettingStartedAsync.md's samples assume (the first sample declares `client`).
import CurlBridge
import Foundation

struct GettingStartedAsyncSamples: Sendable {
    let client: AsyncClient
    let destination: URL
    let transport: Transport
    let ids: [Int]
}
