@testable import CurlBridge
import CurlBridgeTestServer
import Foundation

/// The loopback server shared by every test in the process, and transports that trust its CA.
enum Fixture {
    private static let serverTask = Task { try await TestServer.start() }

    /// The shared server, started on first use.
    static func server() async throws -> TestServer {
        try await serverTask.value
    }

    /// A transport whose base URL is the server's plaintext (or TLS) port and that trusts the test CA.
    static func transport(
        _ server: TestServer, tls: Bool = false, _ adjust: (inout Configuration) -> Void = { _ in }
    ) -> Transport {
        var configuration = Configuration(
            baseURL: tls ? server.httpsURL : server.httpURL,
            tls: TLSConfiguration(trustedCertificatesPEM: TestServer.certificateAuthorityPEM))
        adjust(&configuration)
        return Transport(configuration: configuration)
    }
}

extension Transport {
    /// Waits (at most 20 s) until `count` requests are in flight: a condition, not a guess at how
    /// long a loaded machine takes to start them.
    func waitUntilInFlight(_ count: Int) async throws {
        for _ in 0..<2000 where inFlightCount < count {
            try await Task.sleep(for: .milliseconds(10))
        }
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
