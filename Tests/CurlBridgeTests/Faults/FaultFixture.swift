import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// The fault server shared by the fault tests, and transports that count completions.
enum FaultFixture {
    private static let serverTask = Task { try await FaultServer.start() }

    /// The shared fault server, started on first use.
    static func server() async throws -> FaultServer {
        try await serverTask.value
    }

    /// A transport that trusts the test CA, with `adjust` applied, and the completions it delivers.
    static func transport(_ adjust: (inout Configuration) -> Void = { _ in }) -> (Transport, CompletionCounter) {
        let counter = CompletionCounter()
        var configuration = Configuration(tls: TLSConfiguration(trustRoots: .replacingSystem(with: Fixture.testCA)))
        configuration.eventMonitors = [counter.monitor]
        adjust(&configuration)
        return (Transport(configuration: configuration), counter)
    }

    /// A key no other test uses.
    static func key() -> String { UUID().uuidString }
}

/// Counts completed requests by URL, from a transport's event monitor.
final class CompletionCounter: Sendable {
    private let urls = Mutex<[String]>([])

    /// The monitor to install in the transport's configuration.
    var monitor: ClosureEventMonitor {
        ClosureEventMonitor(requestDidComplete: { request, _, _, _ in self.urls.withLock { $0.append(request.url) } })
    }

    /// Completions of requests whose URL contains `key`, once the transport has delivered every
    /// event it owed to earlier requests: one more request is sent and its completion awaited
    /// (the loop and the monitor's queue are both serial, so a late second completion of an
    /// earlier request would have come first).
    func completions(containing key: String, through transport: Transport, server: FaultServer) async -> Int {
        let marker = FaultFixture.key()
        _ = await ClientStyle.async.send(.get(server.url(.ok, key: marker)), through: transport)
        _ = await poll(within: .seconds(30), until: { self.urls.withLock { $0.contains { $0.contains(marker) } } })
        return urls.withLock { $0.filter { $0.contains(key) }.count }
    }
}

/// Which verb, style and port a fault test runs with.
struct FaultRoute: Sendable, CustomTestStringConvertible {
    enum Verb: String, Sendable, CaseIterable { case send, stream, download }

    var verb: Verb
    var style: ClientStyle
    var tls: Bool

    var testDescription: String { "\(verb) \(style) \(tls ? "TLS" : "plain")" }

    /// Every verb × style × (plain, TLS).
    static let all: [FaultRoute] = Verb.allCases.flatMap { verb in
        ClientStyle.allCases.flatMap { style in [false, true].map { FaultRoute(verb: verb, style: style, tls: $0) } }
    }
}

/// What a request ended with, whatever the verb: the code, or the body of a success.
enum FaultOutcome: Equatable, Sendable, CustomStringConvertible {
    case failed(RequestError.Code)
    case succeeded(Data)

    var description: String {
        switch self {
        case .failed(let code): "failed(\(code))"
        case .succeeded(let body): "succeeded(\(body.count) bytes: \(String(decoding: body.prefix(40), as: UTF8.self)))"
        }
    }
}

extension FaultRoute {
    /// Runs `request` with this route's verb and style, and says how it ended; a download's file
    /// must not exist after a failure.
    func run(_ request: Request, through transport: Transport) async -> (outcome: FaultOutcome, headers: HTTPFields?, error: RequestError?) {
        switch verb {
        case .send:
            switch await style.send(request, through: transport) {
            case .success(let response): return (.succeeded(response.body), response.headerFields, nil)
            case .failure(let error): return (.failed(error.code), nil, error)
            }
        case .stream:
            let outcome = await style.stream(request, through: transport)
            if let error = outcome.error { return (.failed(error.code), outcome.head?.headerFields, error) }
            return (.succeeded(outcome.body), outcome.head?.headerFields, nil)
        case .download:
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("fault-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: destination) }
            switch await style.download(request, to: destination, through: transport) {
            case .success(let download):
                return (.succeeded((try? Data(contentsOf: destination)) ?? Data()), download.headerFields, nil)
            case .failure(let error):
                #expect(!FileManager.default.fileExists(atPath: destination.path), "a failed download left its file")
                return (.failed(error.code), nil, error)
            }
        }
    }
}
