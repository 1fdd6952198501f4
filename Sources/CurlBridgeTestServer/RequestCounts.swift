import NIOConcurrencyHelpers

extension TestServer {
    /// How many requests with `count=key` in their query any server of this process has received,
    /// whichever route they reached — every redirect hop and retry counts — so a test can prove
    /// that a request went out exactly as often as it should (never once more after a cancel).
    /// Counted when the head arrives, before the route answers.
    public static func requestCount(key: String) -> Int {
        RequestCounts.counts.withLockedValue { $0[key, default: 0] }
    }

    /// How many `/drip` responses to requests with `count=key` are still being written: a drip
    /// stops when its last byte is out or its connection or HTTP/2 stream closes, so a test can
    /// prove that a cancel reached the server.
    public static func openDripCount(key: String) -> Int {
        RequestCounts.openDrips.withLockedValue { $0[key, default: 0] }
    }

    /// How many body bytes of pattern responses (`/resource/N`, `/bytes/N`, `/chunked/N`,
    /// `/close-mid-body`) any server of this process has written for requests with `count=key` in
    /// their query, over HTTP/1.1 and HTTP/2, so a test can measure what a client fetched — and
    /// fetched again. Counted as each chunk is handed to the connection, before it goes out: bytes
    /// a client that vanishes never reads are counted too.
    public static func bytesServed(key: String) -> Int {
        RequestCounts.servedBytes.withLockedValue { $0[key, default: 0] }
    }
}

/// The counts behind ``TestServer/requestCount(key:)``.
enum RequestCounts {
    /// A `NIOLockedValueBox` (a pthread mutex), which ThreadSanitizer understands.
    static let counts = NIOLockedValueBox<[String: Int]>([:])

    /// The drips being written, by key.
    static let openDrips = NIOLockedValueBox<[String: Int]>([:])

    /// The pattern body bytes written, by key.
    static let servedBytes = NIOLockedValueBox<[String: Int]>([:])

    /// Counts a request with target `target` if its query has a `count` parameter.
    static func note(target: String) {
        guard let key = key(of: target) else { return }
        counts.withLockedValue { $0[key, default: 0] += 1 }
    }

    /// The `count` parameter of `target`'s query, if it has one.
    static func key(of target: String) -> String? {
        guard let query = target.firstIndex(of: "?").map({ target[target.index(after: $0)...] }) else { return nil }
        return QueryParameters(rawQuery: String(query))["count"]
    }

    /// A drip for a request counted under `key` started (`delta` 1) or stopped (`delta` -1).
    static func noteDrip(key: String, _ delta: Int) {
        openDrips.withLockedValue { $0[key, default: 0] += delta }
    }

    /// `count` body bytes were written for a request counted under `key`.
    static func noteServed(key: String, _ count: Int) {
        servedBytes.withLockedValue { $0[key, default: 0] += count }
    }
}
