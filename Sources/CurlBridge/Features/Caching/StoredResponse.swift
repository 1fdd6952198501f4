#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// A response as the cache keeps it: its head and complete body, when it was requested and
/// received (for its age), whose it is (the partition) and the request's values of the fields its
/// `Vary` names (to tell its variant).
struct StoredResponse: Sendable, Equatable {
    /// The URL it answers (without user info): the cache key, with the partition and the variant.
    var url: String
    /// Whose credentials and which trust it was fetched under (``CacheRequest/partition``).
    var partition: String
    var status: HTTPResponse.Status
    var headerFields: HTTPFields
    var httpVersion: HTTPVersion
    /// The body, decoded as it was delivered.
    var body: Data
    /// When the request that fetched it (or last revalidated it) was sent.
    var requestTime: Date
    /// When its head arrived.
    var responseTime: Date
    /// The request's values of the fields `Vary` names, by lowercased name, each a keyed hash
    /// (``CacheRequest/variant(of:)``); a name the request did not send is absent.
    var variant: [String: String]

    /// The most header fields a response can hold (`HTTPFields` traps on its 65,535th).
    static let maximumFieldCount = Int(UInt16.max) - 1

    /// The bytes it counts for against the cache's limit.
    var size: Int {
        Self.size(url: url, fields: headerFields.map { ($0.name.rawName, $0.value) }, bodyLength: body.count)
    }

    /// The size of a response with `url`, `fields` and a body of `bodyLength` bytes.
    static func size(url: String, fields: [(String, String)], bodyLength: Int) -> Int {
        fields.reduce(url.utf8.count + bodyLength) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 }
    }

    /// The lowercased field names its `Vary` lists; `["*"]` matches no request.
    var varyNames: [String] {
        Self.varyNames(headerFields)
    }

    static func varyNames(_ fields: HTTPFields) -> [String] {
        fields[values: HTTPField.Name("Vary")!].flatMap { line in
            line.split(separator: ",").map { $0.trimmingWhitespace().lowercased() }
        }.filter { !$0.isEmpty }
    }

    /// Whether this response answers `request` (RFC 9111 §4.1): its URL, its partition, and the
    /// values of the fields its `Vary` names.
    func matches(_ request: CacheRequest) -> Bool {
        let names = varyNames
        guard url == request.url, partition == request.partition, !names.contains("*") else { return false }
        return request.variant(of: names) == variant
    }
}
