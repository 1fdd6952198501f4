@testable import CurlBridge
import Foundation
import HTTPTypes

/// The values the cache's pure exchange tests share: a clock reading, a request looked up in
/// partition `p`, and responses stored for it, fresh or stale.
enum CacheExchangeFixture {
    /// The request's time.
    static let now = Date(timeIntervalSince1970: 1_000_000)
    /// The URL every request asks for.
    static let url = "http://example/a"
    /// A stored body of `chunkSize + 6` bytes: two pieces when played.
    static let body = Data(repeating: 7, count: ResponsePlayback.chunkSize + 6)

    /// The request `prepared` as the cache sees it, in partition `p` (none when `partition` is nil).
    static func request(_ prepared: PreparedRequest, partition: String? = "p") -> CacheRequest {
        var request = CachePartitioner(keyedHash: KeyedHash(key: Array(repeating: 1, count: 32)), trust: CacheTrust(Configuration()), cookies: nil)
            .request(for: prepared)
        request.partition = partition
        return request
    }

    /// A configuration with a memory cache, that sends credentials to the fixture's plain URL.
    static let configuration = {
        var configuration = Configuration()
        configuration.cache = HTTPCache(store: MemoryCacheStore(limit: 128), limit: 128, clock: { now })
        configuration.allowsCredentialsOverPlainHTTP = true
        return configuration
    }()

    /// `request` prepared with ``configuration``.
    static func prepared(_ request: Request) -> PreparedRequest {
        try! request.prepared(with: RequestDefaults(configuration)).get()
    }

    /// A 200 stored for `url` in `p`, `max-age=60`, `ETag: "v1"`, received `age` seconds before `now`.
    static func stored(age: TimeInterval, body: Data = body, extra: HTTPFields = [:]) -> StoredResponse {
        var fields: HTTPFields = [.cacheControl: "max-age=60", .eTag: "\"v1\"", .contentLength: String(body.count)]
        fields.append(contentsOf: extra)
        return StoredResponse(
            url: url, partition: "p", status: .ok, headerFields: fields, httpVersion: .http1_1, body: body,
            requestTime: now - age, responseTime: now - age, variant: [:])
    }

    /// A response a transfer ended with: `status` with `fields`.
    static func response(_ status: HTTPResponse.Status, _ fields: HTTPFields, method: HTTPRequest.Method = .get) -> Response {
        Response(status: status, headerFields: fields, body: Data(), url: url, httpVersion: .http1_1, metrics: .zero, requestMethod: method)
    }
}
