@testable import CurlBridge
import CurlBridgeOpenAPI
import CurlBridgeTestServer
import Foundation
import Testing

/// The HTTP version and connection a test runs over: the test server's TLS port, with ALPN
/// choosing HTTP/1.1 or HTTP/2.
enum Wire: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case http1 = "HTTP/1.1 over TLS"
    case http2 = "HTTP/2 over TLS"

    var testDescription: String { rawValue }

    /// How ``EchoReply`` and ``UploadSinkReply`` name the version.
    var serverName: String {
        switch self {
        case .http1: "1.1"
        case .http2: "2"
        }
    }

    var preference: HTTPVersionPreference {
        switch self {
        case .http1: .http1_1
        case .http2: .http2OverTLS
        }
    }
}

/// The generated client over a ``CurlBridgeClientTransport`` whose transport trusts the test CA.
struct OpenAPIFixture {
    private static let sharedServer = Task { try await TestServer.start() }

    /// The server shared by the tests of this target, started on first use.
    static func server() async throws -> TestServer {
        try await sharedServer.value
    }

    let transport: Transport
    let client: Client

    /// A client of `server` (the shared one by default) over `wire`, at `serverURL` (the
    /// server's TLS URL by default).
    init(
        _ wire: Wire, server: TestServer? = nil, serverURL: URL? = nil,
        configuration: CurlBridgeClientTransport.Configuration = .init()
    ) async throws {
        let server = if let server { server } else { try await Self.server() }
        let trust = try CertificateBundle(pem: TestServer.certificateAuthorityPEM)
        transport = Transport(configuration: CurlBridge.Configuration(
            tls: TLSConfiguration(trustRoots: .replacingSystem(with: trust)), httpVersion: wire.preference))
        client = Client(
            serverURL: serverURL ?? server.httpsURL,
            transport: CurlBridgeClientTransport(transport: transport, configuration: configuration))
    }

    /// Waits until no transfer is in flight any more: a cancelled or dropped one has ended in curl.
    func waitUntilIdle() async throws {
        while transport.inFlightCount > 0 {
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits until `count` transfers are in flight.
    func waitUntilInFlight(_ count: Int) async throws {
        while transport.inFlightCount < count {
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Shuts the transport down, once every transfer has ended.
    func shutdown() async {
        await transport.shutdown()
    }
}

extension Trait where Self == TimeLimitTrait {
    /// A test still running after two minutes (the suite takes seconds) is hung: it fails by name.
    static var hangGuard: Self { .timeLimit(.minutes(2)) }
}
