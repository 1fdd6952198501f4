import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

// The documentation's code samples (Sources/CurlBridge/CurlBridge.docc) run in these tests, line
// for line: scripts/docs.sh fails when a line of a checked sample is missing here. The samples name
// an API's paths ("users/42", "files/report.pdf"); `DocumentationRoutes` sends each to the embedded
// server's route that answers like it, so the code the reader sees is the code that runs.

/// What the samples decode from `users/42` (the server's `/json`: `{"id":42,"name":"CurlBridge"}`).
struct User: Codable, Sendable, Equatable {
    var id: Int
    var name: String
}

/// What the samples post to `users` (the server's `/echo`, which answers with what it received).
struct NewUser: Codable, Sendable {
    var name: String
}

/// Sends the samples' paths to the embedded server's routes. A path listed with several routes
/// takes them in turn, one per attempt, then stays on the last: a download that stalls the first
/// time and completes when resumed.
final class DocumentationRoutes: RequestInterceptor {
    private let routes: Mutex<[String: [String]]>

    init() {
        routes = Mutex([
            "users/42": ["json"],
            "users": ["echo"],
            "search": ["echo"],
            "feed": ["json"],
            "missing": ["status/404"],
            "reports/slow": ["never-respond"],
            "files/report.pdf": ["resource/65536"],
            "files/big.iso": ["resource/1048576?stall-after=65536", "resource/1048576"],
            "uploads": ["upload-sink"],
            "events": ["chunked/262144"],
        ])
    }

    func adapt(_ request: Request, for context: AttemptContext) async throws -> Request {
        let route: String? = routes.withLock { routes in
            guard var targets = routes[request.url], let first = targets.first else { return nil }
            if targets.count > 1 { targets.removeFirst() }
            routes[request.url] = targets
            return first
        }
        guard let route else { return request }
        var adapted = request
        adapted.url = route
        return adapted
    }

    var decidesRetries: Bool { false }
}

/// The embedded server, seen as the API the documentation talks to.
enum DocumentationServer {
    /// A configuration like the samples' `Configuration(baseURL: URL(string: "https://api.example.com/v1/"))`,
    /// pointed at the embedded server (plaintext HTTP/1.1, or TLS with the test CA trusted).
    static func configuration(_ server: TestServer, tls: Bool = false) -> Configuration {
        var configuration = Configuration(baseURL: tls ? server.httpsURL : server.httpURL)
        if tls { configuration.tls = TLSConfiguration(trustRoots: .replacingSystem(with: Fixture.testCA)) }
        configuration.interceptors = [DocumentationRoutes()]
        return configuration
    }
}

/// Where a sample's callbacks put their outcome (`show(…)`, `report(…)` in the samples), and
/// the test waits for it.
final class SampleOutcome<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, RequestError>?>(nil)

    /// Records a success; only the first outcome counts.
    func succeed(_ value: Value) { result.withLock { $0 = $0 ?? .success(value) } }

    /// Records a failure; only the first outcome counts.
    func fail(_ error: RequestError) { result.withLock { $0 = $0 ?? .failure(error) } }

    /// The outcome, once there is one.
    func value(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Result<Value, RequestError> {
        try await waitFor("the sample's outcome", sourceLocation: sourceLocation) { self.result.withLock { $0 != nil } }
        return try #require(result.withLock { $0 })
    }
}
