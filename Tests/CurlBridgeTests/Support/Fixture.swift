@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The loopback server shared by every test in the process, and transports that trust its CA.
enum Fixture {
    private static let serverTask = Task { try await TestServer.start() }
    private static let otherServerTask = Task { try await TestServer.start() }

    /// The shared server, started on first use.
    static func server() async throws -> TestServer {
        try await serverTask.value
    }

    /// A second server on other ports: another origin, for redirects that cross origins.
    static func otherServer() async throws -> TestServer {
        try await otherServerTask.value
    }

    /// The test CA, the only one the fixture's transports trust.
    static let testCA = certificates(TestServer.certificateAuthorityPEM)

    /// A bundle of PEM text compiled into the test server; a malformed one is a broken build.
    static func certificates(_ pem: String) -> CertificateBundle {
        do {
            return try CertificateBundle(pem: pem)
        } catch {
            preconditionFailure("a PEM constant of the test server is malformed: \(error)")
        }
    }

    /// A transport whose base URL is the server's plaintext (or TLS) port and that trusts the test CA.
    static func transport(
        _ server: TestServer, tls: Bool = false, _ adjust: (inout Configuration) -> Void = { _ in }
    ) -> Transport {
        var configuration = Configuration(
            baseURL: tls ? server.httpsURL : server.httpURL,
            tls: TLSConfiguration(trustRoots: .replacingSystem(with: testCA)))
        adjust(&configuration)
        return Transport(configuration: configuration)
    }
}

extension Transport {
    /// Waits until `count` requests are in flight — a condition, not a guess at how long a loaded
    /// machine takes to start them — then runs `action` at once, on the thread that watched, so no
    /// task scheduling comes between the two (see ``poll(within:until:then:)``).
    ///
    /// Fails the test at the caller's line if they are not in flight after `limit`: a hang guard
    /// for a transport that never starts them, far beyond any healthy wait.
    func waitUntilInFlight(
        _ count: Int,
        then action: @escaping @Sendable () -> Void = {},
        limit: Duration = .seconds(60),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let started = await poll(within: limit, until: { self.inFlightCount >= count }, then: action)
        try #require(
            started, "\(count) request(s) should be in flight, but after \(limit) only \(inFlightCount) were",
            sourceLocation: sourceLocation)
    }

    /// Starts `requests` back to back from the calling thread, so each is queued in the transport
    /// microseconds after the one before (whatever the task scheduling), and returns their
    /// outcomes in the same order.
    func startTogether(_ requests: [Request]) async -> [Result<Response, RequestError>] {
        let (outcomes, delivery) = AsyncStream<(index: Int, result: Result<Response, RequestError>)>.makeStream()
        for (index, request) in requests.enumerated() {
            start(request, events: TransferEvents { delivery.yield((index, $0)) })
        }
        var results: [Int: Result<Response, RequestError>] = [:]
        for await outcome in outcomes.prefix(requests.count) { results[outcome.index] = outcome.result }
        return requests.indices.compactMap { results[$0] }
    }

    /// Sends one more request (`echo`, against the fixture's base URL) and waits for it. The loop
    /// is serial, so by then it has delivered every event it owed to transfers started before,
    /// including any wrong second completion: what a test checks afterwards is final, with no
    /// sleep to guess.
    func drainEvents() async {
        _ = await startTogether([.get("echo")])
    }
}

extension Response {
    /// The echo route's report of what the server received.
    func echo() throws -> EchoReply { try decode(EchoReply.self) }
}

extension EchoReply {
    /// The received header values named `name` (case-insensitive).
    func header(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }

    /// The received body bytes.
    var bodyData: Data { Data(base64Encoded: body) ?? Data() }
}
