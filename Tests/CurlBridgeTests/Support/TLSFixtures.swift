import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// TLS scenario listeners and transports for the trust, pinning and mutual-TLS tests.
enum TLSFixture {
    /// Starts a listener of `scenario` on the shared server, runs `body` with it and closes it.
    static func withListener(
        _ scenario: TLSScenario, _ body: (TLSListener) async throws -> Void
    ) async throws {
        let listener = try await Fixture.server().startTLSListener(scenario)
        do {
            try await body(listener)
        } catch {
            try await listener.close()
            throw error
        }
        try await listener.close()
    }

    /// A transport with `tls` whose base URL is `listener` on `host`.
    static func transport(_ listener: TLSListener, host: String = "127.0.0.1", tls: TLSConfiguration) throws -> Transport {
        Transport(configuration: Configuration(baseURL: try listener.url(host: host), tls: tls))
    }

    /// Trust in the test CA alone.
    static var trustingTestCA: TLSConfiguration {
        TLSConfiguration(trustRoots: .replacingSystem(with: Fixture.testCA))
    }

    /// Trust in the test CA alone, and `pinning` for `host`.
    static func trustingTestCA(pinning: Pinning, for host: String = "127.0.0.1") -> TLSConfiguration {
        var tls = trustingTestCA
        tls.pins[host] = pinning
        return tls
    }
}

extension Result where Success == Response, Failure == RequestError {
    /// The failure's code; records an issue (at the caller's line) when the request succeeded.
    func failureCode(sourceLocation: SourceLocation = #_sourceLocation) -> RequestError.Code? {
        switch self {
        case .success(let response):
            Issue.record("expected a failure, got status \(response.status.code)", sourceLocation: sourceLocation)
            return nil
        case .failure(let error):
            return error.code
        }
    }
}
