// The names Errors.md's samples assume.
import CurlBridge

struct ErrorsSamples: Sendable {
    let client: AsyncClient
    func showSlowNetwork() {}
    func showMissing() {}
}
