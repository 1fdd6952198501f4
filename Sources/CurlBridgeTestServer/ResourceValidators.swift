import Foundation
import NIOHTTP1

/// The validators `/resource/N` sends for one version of itself, and its `If-Range` check.
struct ResourceValidators {
    /// Which validators are sent.
    enum Style {
        /// A strong `ETag` and `Last-Modified` (the default).
        case strong
        /// A weak `ETag` (`W/"…"`), which can never satisfy `If-Range`, and `Last-Modified`.
        case weak
        /// `Last-Modified` alone.
        case dateOnly
        /// Neither, so `If-Range` never matches.
        case none
    }

    /// The `ETag` value, `"res-N-vV"` or `W/"res-N-vV"`; `nil` when validators are off.
    let entityTag: String?
    /// The `Last-Modified` value, an IMF-fixdate ``baseDate`` plus `version` days; `nil` when
    /// validators are off.
    let lastModified: String?

    /// `Last-Modified` of version 0: Mon, 01 Jan 2024 00:00:00 GMT.
    static let baseDate = Date(timeIntervalSince1970: 1_704_067_200)

    /// The `Date` to send: now, or one second after `Last-Modified` when the resource was "just
    /// modified".
    let date: String

    /// The validators of version `version` of the `size`-byte resource; its entity tag is
    /// `"tag"` when `tag` is given.
    init(size: Int, version: Int, style: Style, tag: String? = nil, justModified: Bool = false) {
        let tag = "\"\(tag ?? "res-\(size)-v\(version)")\""
        switch style {
        case .strong:
            self.entityTag = tag
        case .weak:
            self.entityTag = "W/" + tag
        case .dateOnly, .none:
            self.entityTag = nil
        }
        let modified = Self.baseDate.addingTimeInterval(TimeInterval(version) * 86_400)
        self.lastModified = style == .none ? nil : Self.imfFixdate(modified)
        self.date = Self.imfFixdate(justModified ? modified.addingTimeInterval(1) : Date())
    }

    /// Whether an `If-Range` of `ifRange` lets a `Range` through: when there is none, or when it
    /// equals, byte for byte, the current `ETag` (if strong) or the current `Last-Modified`.
    func admitRange(ifRange: String?) -> Bool {
        guard let ifRange else { return true }
        if let entityTag, !entityTag.hasPrefix("W/"), ifRange == entityTag {
            return true
        }
        return ifRange == self.lastModified
    }

    /// Adds `Date`, and `ETag` and `Last-Modified`, those that are on.
    func add(to headers: inout HTTPHeaders) {
        headers.add(name: "Date", value: date)
        if let entityTag {
            headers.add(name: "ETag", value: entityTag)
        }
        if let lastModified {
            headers.add(name: "Last-Modified", value: lastModified)
        }
    }

    /// `date` as an IMF-fixdate, e.g. `Tue, 02 Jan 2024 00:00:00 GMT`.
    private static func imfFixdate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
