// The names Security.md's samples assume.
import CurlBridge
import Foundation

struct SecuritySamples: Sendable {
    let client: AsyncClient
    let cdnCA: URL
    let filesKey: String
    let certificatePEM: String
    let keyPEM: String
    let key: String
    let id: String
    let secret: String
}
