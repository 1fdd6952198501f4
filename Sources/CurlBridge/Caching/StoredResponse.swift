import Foundation
import HTTPTypes

/// A response as the cache keeps it: its head and complete body, when it was requested and
/// received (for its age), and the request's values of the fields its `Vary` names (to tell
/// its variant).
struct StoredResponse: Sendable, Equatable {
    /// The URL it answers: the cache key, with the variant.
    var url: String
    var status: HTTPResponse.Status
    var headerFields: HTTPFields
    var httpVersion: HTTPVersion
    /// The body, decoded as it was delivered.
    var body: Data
    /// When the request that fetched it (or last revalidated it) was sent.
    var requestTime: Date
    /// When its head arrived.
    var responseTime: Date
    /// The request's values of the fields `Vary` names, by lowercased name; a name the request
    /// did not send is absent.
    var variant: [String: String]

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
            line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        }.filter { !$0.isEmpty }
    }

    /// The request's values of `names`, as ``variant`` keeps them (lines of one name joined by commas).
    static func variant(of names: [String], in requestFields: HTTPFields) -> [String: String] {
        var values: [String: String] = [:]
        for name in names where name != "*" {
            guard let field = HTTPField.Name(name) else { continue }
            let lines = requestFields[values: field]
            if !lines.isEmpty { values[name] = Self.normalised(lines.joined(separator: ",")) }
        }
        return values
    }

    /// A field value with the whitespace around its commas removed, so that `a, b` matches `a,b`.
    private static func normalised(_ value: String) -> String {
        value.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ",")
    }

    /// Whether this variant answers a request with `requestFields` (RFC 9111 §4.1).
    func matches(_ requestFields: HTTPFields) -> Bool {
        let names = varyNames
        if names.contains("*") { return false }
        return Self.variant(of: names, in: requestFields) == variant
    }
}
