// The names ConnectionsAndConfiguration.md's samples assume.
import CurlBridge
import Foundation

struct ConnectionsAndConfigurationSamples: Sendable {
    let api: URL
    let client: AsyncClient
    let transport: Transport
    let cookiesURL: URL
    let exportURL: URL
    let browserExportURL: URL
    let secret: String
    let corporateCA: CertificateBundle
}
