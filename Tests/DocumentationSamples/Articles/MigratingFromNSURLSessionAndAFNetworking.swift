// The names MigratingFromNSURLSessionAndAFNetworking.md's samples assume (its first sample
// declares `transport`, `legacy` and `client`).
import CurlBridge
import CurlBridgeFoundation
import Foundation

struct MigratingFromNSURLSessionAndAFNetworkingSamples: Sendable {
    let transport: Transport
    let legacy: CallbackClient
    let client: AsyncClient
    let destination: URL
    let photo: URL
    let download: DownloadTask
    let saved: ResumeData
    let baseURL: URL
    let cookieFile: URL
    let currentKeyPin: String
    let backupKeyPin: String
    let corporateCA: CertificateBundle
    func save(_ resumeData: ResumeData?) {}
}

/// The query a sample encodes with AFNetworking's parameter style.
struct Query: Encodable, Sendable {
    var tags: [String]
    var page: Int
}
