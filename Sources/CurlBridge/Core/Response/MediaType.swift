/// A media type as found in `Content-Type` and `Accept`: type and subtype, lowercased, without
/// parameters (`application/json; charset=utf-8` is `application/json`).
struct MediaType: Hashable, CustomStringConvertible {
    let type: Substring
    let subtype: Substring

    /// Parses `text`; `nil` when it is not `type/subtype`.
    init?(_ text: String) {
        let essence = text.split(separator: ";", maxSplits: 1).first?.trimmingWhitespace().lowercased() ?? ""
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        type = parts[0]
        subtype = parts[1]
    }

    /// The media types of an `Accept` value (quality parameters ignored).
    static func list(_ accept: String) -> [String] {
        accept.split(separator: ",").map(String.init)
    }

    /// `*/*`.
    var isWildcard: Bool { type == "*" && subtype == "*" }

    /// Whether `other` is this type, with `*` matching anything on either side.
    func matches(_ other: MediaType) -> Bool {
        (type == "*" || other.type == "*" || type == other.type)
            && (subtype == "*" || other.subtype == "*" || subtype == other.subtype)
    }

    var description: String { "\(type)/\(subtype)" }
}
