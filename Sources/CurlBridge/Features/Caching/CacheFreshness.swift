#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// How old a stored response is and how long it stays fresh (RFC 9111 §4.2), as a private cache
/// computes them: `s-maxage` is ignored, `max-age` comes before `Expires`, and a response with
/// neither may be given heuristic freshness from `Last-Modified` when its status allows.
struct CacheFreshness: Equatable {
    /// The response's current age, in seconds (§4.2.3).
    var age: TimeInterval
    /// How long it is fresh from its origin, in seconds (§4.2.1).
    var lifetime: TimeInterval
    /// Whether the lifetime is a heuristic one (§4.2.2).
    var isHeuristic: Bool

    /// Whether it is fresh: its age below its lifetime.
    var isFresh: Bool { lifetime > age }

    /// Seconds it has been stale; `0` while fresh.
    var staleness: TimeInterval { max(0, age - lifetime) }

    /// The `Age` field a response served at this freshness carries (RFC 9111 §5.1): its age in
    /// whole seconds, the largest `Int` when it is larger (an `Age` field's own value can be
    /// close to that already).
    var ageFieldValue: String {
        age < 0x1p63 ? String(Int(age)) : String(Int.max)
    }

    /// The status codes a response may be given heuristic freshness for (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The share of the time since `Last-Modified` a heuristic lifetime is (§4.2.2's typical 10%).
    static let heuristicFraction = 0.1

    /// The `Age` field's value: of several (lines or list members), the first; an invalid one is ignored.
    static func ageValue(_ fields: HTTPFields) -> Int? {
        guard let first = fields[values: HTTPField.Name("Age")!].first?.split(separator: ",", omittingEmptySubsequences: false).first else {
            return nil
        }
        return CacheControl.seconds(Substring(first.trimmingWhitespace()))
    }

    /// `stored`'s freshness at `now`.
    init(of stored: StoredResponse, now: Date) {
        let fields = stored.headerFields
        let control = CacheControl(fields)
        let date = fields[.date].flatMap(HTTPDate.parse) ?? stored.responseTime
        // §4.2.3: the age from the Age field, the time in flight and the time stored.
        let ageValue = Self.ageValue(fields).map(TimeInterval.init) ?? 0
        let apparentAge = max(0, stored.responseTime.timeIntervalSince(date))
        let responseDelay = max(0, stored.responseTime.timeIntervalSince(stored.requestTime))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        age = correctedInitialAge + max(0, now.timeIntervalSince(stored.responseTime))
        isHeuristic = false
        if let maxAge = control.maxAge {
            lifetime = TimeInterval(maxAge)
        } else if let expiresLine = fields[HTTPField.Name("Expires")!] {
            // An invalid Expires (such as "0") is a time in the past.
            lifetime = HTTPDate.parse(expiresLine).map { max(0, $0.timeIntervalSince(date)) } ?? 0
        } else if let lastModified = fields[HTTPField.Name("Last-Modified")!].flatMap(HTTPDate.parse),
                  control.isPublic || Self.heuristicallyCacheable.contains(stored.status.code) {
            lifetime = max(0, date.timeIntervalSince(lastModified)) * Self.heuristicFraction
            isHeuristic = true
        } else {
            lifetime = 0
        }
    }
}
