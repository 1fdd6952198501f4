@testable import CurlBridge
import CurlBridgeTestServer
import Foundation

/// A clock the cache ages its responses by, moved on by the test instead of waited for.
final class CacheClock: Sendable {
    private let current = PosixLock(Date())

    var now: Date { current.withLock { $0 } }

    /// Moves the clock on by `seconds`.
    func advance(_ seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}

/// A resource of the test server at a path of its own, answering with what the test says and
/// counting the requests that reached it.
final class CountedOrigin: Sendable {
    /// What the server saw of one request.
    struct Seen: Sendable {
        var method: String
        var headers: [(name: String, value: String)]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    let path: String
    private let seen = PosixLock<[Seen]>([])

    /// Registers the resource on `server`; `respond` gets the request's number (from 1) and the request.
    init(_ server: TestServer, respond: @escaping @Sendable (Int, RouteRequest) -> RouteResponse) {
        path = "/cached/\(UUID().uuidString)"
        let seen = self.seen
        server.route(path) { request in
            let number = seen.withLock {
                $0.append(Seen(method: request.method, headers: request.headers))
                return $0.count
            }
            return respond(number, request)
        }
    }

    /// How many requests reached the server.
    var count: Int { seen.withLock { $0.count } }

    /// The requests the server saw, first to last.
    var requests: [Seen] { seen.withLock { $0 } }

    /// A response with `body` and these header fields.
    static func answer(_ body: String, status: Int = 200, _ headers: [(String, String)]) -> RouteResponse {
        RouteResponse(status: status, headers: headers.map { (name: $0.0, value: $0.1) }, body: Data(body.utf8))
    }
}

/// A transport with a memory cache aged by `clock`, whose base URL is the server's (TLS, HTTP/2
/// when `tls`).
func cachingTransport(
    _ server: TestServer, tls: Bool = false, clock: CacheClock = CacheClock(), storage: HTTPCache.Storage = .memory(limit: 8 << 20),
    _ adjust: (inout Configuration) -> Void = { _ in }
) throws -> (Transport, HTTPCache) {
    let cache = try HTTPCache(storage, clock: { clock.now })
    let transport = Fixture.transport(server, tls: tls) {
        $0.cache = cache
        adjust(&$0)
    }
    return (transport, cache)
}

/// A fresh empty directory under the temporary directory.
func temporaryCacheDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("curlbridge-cache-\(UUID().uuidString)", isDirectory: true)
}
