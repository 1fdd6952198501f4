#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes an `Encodable` value as `application/x-www-form-urlencoded` text, as AFNetworking's
/// request serializer and Alamofire's `URLEncodedFormEncoder` do.
///
/// Top-level values must be keyed (a struct or dictionary). Nested values become bracketed keys:
/// `user[name]=Ada`, arrays follow ``arrayEncoding``. Names and values are percent-encoded per
/// RFC 3986 (unreserved characters only are left as they are).
///
/// ```swift
/// let encoder = URLEncodedFormEncoder(arrayEncoding: .noBrackets, spaceEncoding: .plus)
/// try encoder.encode(Search(query: "swift curl", tags: ["a", "b"]))  // "query=swift+curl&tags=a&tags=b"
/// ```
public struct URLEncodedFormEncoder: Sendable {
    /// How array elements are named.
    public enum ArrayEncoding: Sendable, Hashable {
        /// `tags[]=a&tags[]=b` (the default, as AFNetworking and Rails).
        case brackets
        /// `tags=a&tags=b`.
        case noBrackets
        /// `tags[0]=a&tags[1]=b`.
        case indexInBrackets
    }

    /// How booleans are written.
    public enum BoolEncoding: Sendable, Hashable {
        /// `1` and `0` (the default, as AFNetworking).
        case numeric
        /// `true` and `false`.
        case literal
    }

    /// How dates are written.
    public enum DateEncoding: Sendable {
        /// As `Date` encodes itself: seconds since 2001-01-01 (the default).
        case deferredToDate
        /// Seconds since 1970-01-01.
        case secondsSince1970
        /// Milliseconds since 1970-01-01.
        case millisecondsSince1970
        /// ISO 8601 with time zone, e.g. `2026-11-22T15:00:00Z`.
        case iso8601
        /// A closure of yours.
        case custom(@Sendable (Date) -> String)
    }

    /// What a `nil` optional becomes.
    public enum NilEncoding: Sendable, Hashable {
        /// Nothing: the key is left out (the default, as synthesized `Encodable` does).
        case dropKey
        /// The key with an empty value: `name=`.
        case empty
    }

    /// How spaces are written.
    public enum SpaceEncoding: Sendable, Hashable {
        /// `%20` (the default; valid in query strings and forms alike).
        case percentEscaped
        /// `+`, as HTML forms send them.
        case plus
    }

    /// Array naming; ``ArrayEncoding/brackets`` by default.
    public var arrayEncoding: ArrayEncoding
    /// Boolean spelling; ``BoolEncoding/numeric`` by default.
    public var boolEncoding: BoolEncoding
    /// Date format; ``DateEncoding/deferredToDate`` by default.
    public var dateEncoding: DateEncoding
    /// `nil` handling; ``NilEncoding/dropKey`` by default.
    public var nilEncoding: NilEncoding
    /// Space spelling; ``SpaceEncoding/percentEscaped`` by default.
    public var spaceEncoding: SpaceEncoding
    /// Whether pairs are sorted by name (stable, so array order is kept); `true` by default, as
    /// AFNetworking sorts, which makes signatures and caches reproducible.
    public var sortsKeys: Bool

    /// Creates an encoder; every option has the default documented on its property.
    public init(
        arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .numeric,
        dateEncoding: DateEncoding = .deferredToDate, nilEncoding: NilEncoding = .dropKey,
        spaceEncoding: SpaceEncoding = .percentEscaped, sortsKeys: Bool = true
    ) {
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.dateEncoding = dateEncoding
        self.nilEncoding = nilEncoding
        self.spaceEncoding = spaceEncoding
        self.sortsKeys = sortsKeys
    }

    /// `value` as `name=value&…` text.
    ///
    /// - Throws: `EncodingError.invalidValue` when the top level is not keyed, or when `value`'s own
    ///   `encode(to:)` throws.
    public func encode<Value: Encodable>(_ value: Value) throws -> String {
        try pairs(value).map { name, value in
            encodeComponent(name) + (value.map { "=" + encodeComponent($0) } ?? "")
        }.joined(separator: "&")
    }

    /// `value` as unencoded name/value pairs in their final order (a `nil` value: a name alone).
    func pairs<Value: Encodable>(_ value: Value) throws -> [(String, String?)] {
        let node = try FormNode.encode(value, options: self)
        guard case .object(let fields) = node else {
            throw EncodingError.invalidValue(value, .init(
                codingPath: [], debugDescription: "a form needs a keyed top-level value (a struct or dictionary), not \(Value.self)"))
        }
        var pairs: [(String, String?)] = []
        for (key, child) in fields { flatten(child, name: key, into: &pairs) }
        return sortsKeys ? pairs.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element) : pairs
    }

    private func flatten(_ node: FormNode, name: String, into pairs: inout [(String, String?)]) {
        switch node {
        case .value(let text):
            pairs.append((name, text))
        case .null:
            if nilEncoding == .empty { pairs.append((name, "")) }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                switch arrayEncoding {
                case .brackets: flatten(element, name: name + "[]", into: &pairs)
                case .noBrackets: flatten(element, name: name, into: &pairs)
                case .indexInBrackets: flatten(element, name: "\(name)[\(index)]", into: &pairs)
                }
            }
        case .object(let fields):
            for (key, child) in fields { flatten(child, name: "\(name)[\(key)]", into: &pairs) }
        }
    }

    private func encodeComponent(_ text: String) -> String {
        spaceEncoding == .plus ? PercentEncoding.formEncoded(text) : PercentEncoding.encoded(text)
    }
}
