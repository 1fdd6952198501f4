#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `Content-Range: bytes first-last/complete` value of a `206` response (RFC 9110 §14.4).
struct ContentRange: Equatable {
    /// The first byte's offset.
    let first: Int64
    /// The last byte's offset.
    let last: Int64
    /// The whole resource's length, `nil` for `*`.
    let completeLength: Int64?

    /// Parses `value`; `nil` when it is not a satisfied byte range.
    init?(_ value: String) {
        let trimmed = value.trimmingWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard spec.count == 2 else { return nil }
        let bounds = spec[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else { return nil }
        let complete = spec[1] == "*" ? nil : Int64(spec[1])
        if spec[1] != "*" && complete == nil { return nil }
        if let complete, last >= complete { return nil }
        self.first = first
        self.last = last
        self.completeLength = complete
    }
}
