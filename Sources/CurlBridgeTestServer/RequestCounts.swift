import NIOConcurrencyHelpers

extension TestServer {
    /// How many requests with `count=key` in their query any server of this process has received,
    /// whichever route they reached — every redirect hop and retry counts — so a test can prove
    /// that a request went out exactly as often as it should (never once more after a cancel).
    /// Counted when the head arrives, before the route answers.
    public static func requestCount(key: String) -> Int {
        RequestCounts.counts.withLockedValue { $0[key, default: 0] }
    }
}

/// The counts behind ``TestServer/requestCount(key:)``.
enum RequestCounts {
    /// A `NIOLockedValueBox` (a pthread mutex), which ThreadSanitizer understands.
    static let counts = NIOLockedValueBox<[String: Int]>([:])

    /// Counts a request with target `target` if its query has a `count` parameter.
    static func note(target: String) {
        guard let query = target.firstIndex(of: "?").map({ target[target.index(after: $0)...] }),
            let key = QueryParameters(rawQuery: String(query))["count"]
        else { return }
        counts.withLockedValue { $0[key, default: 0] += 1 }
    }
}
