// The names Caching.md's samples assume.
import CurlBridge
import Foundation

struct CachingSamples: Sendable {
    let client: AsyncClient
    let cacheDirectory: URL

    func showOfflineBanner() {}
    func showEmptyState() {}
    func show(_ response: Response) {}
}
