import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation
import Synchronization
import Testing

/// An ``H2FaultServer`` and a transport that trusts its certificate (HTTP/2 over TLS, the
/// default) and counts, with an event monitor, how many times each request completed.
struct H2FaultHarness {
    let server: H2FaultServer
    let transport: Transport
    private let monitorQueue: DispatchQueue
    private let completions: Completions

    /// Completions seen by the monitor, per request id.
    private final class Completions: Sendable {
        let byID = Mutex<[UInt64: Int]>([:])
        let started = Mutex(0)
    }

    /// Starts a fault server for `fault` and a transport for it, adjusted by `adjust`.
    static func start(_ fault: H2Fault, _ adjust: (inout Configuration) -> Void = { _ in }) async throws -> H2FaultHarness {
        let server = try await Fixture.server().startH2FaultServer(fault)
        let queue = DispatchQueue(label: "H2FaultHarness.monitor")
        let completions = Completions()
        var configuration = Configuration(
            baseURL: try server.url(), tls: TLSConfiguration(trustRoots: .replacingSystem(with: Fixture.testCA)))
        configuration.eventMonitors = [ClosureEventMonitor(
            queue: queue,
            requestDidStart: { _, _ in completions.started.withLock { $0 += 1 } },
            requestDidComplete: { _, id, _, _ in completions.byID.withLock { $0[id, default: 0] += 1 } })]
        adjust(&configuration)
        return H2FaultHarness(
            server: server, transport: Transport(configuration: configuration), monitorQueue: queue, completions: completions)
    }

    /// Sends `request` in `style`.
    func send(_ request: Request, _ style: ClientStyle) async -> Result<Response, RequestError> {
        await style.send(request, through: transport)
    }

    /// Sends every request of `requests` in `style` at once (the blocking style each from a
    /// thread of its own) and returns their outcomes in the same order.
    func sendConcurrently(_ requests: [Request], _ style: ClientStyle) async -> [Result<Response, RequestError>] {
        await withTaskGroup(of: (Int, Result<Response, RequestError>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, await style.send(request, through: transport)) }
            }
            var outcomes: [Int: Result<Response, RequestError>] = [:]
            for await (index, outcome) in group { outcomes[index] = outcome }
            return requests.indices.compactMap { outcomes[$0] }
        }
    }

    /// Checks that every request sent so far completed exactly once, then closes the server.
    ///
    /// A last request goes through the same transport to the shared fixture server: the loop is
    /// serial, so once the monitor saw it complete, it had been handed every event owed to the
    /// earlier requests, including any wrong second completion.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let fixture = try await Fixture.server()
        _ = await transport.startTogether([.get(fixture.httpsURL.absoluteString + "echo")])
        let completions = self.completions
        let settled = await poll(within: .seconds(60)) {
            completions.byID.withLock { $0.count } >= completions.started.withLock { $0 }
        }
        #expect(settled, "a request never completed", sourceLocation: sourceLocation)
        monitorQueue.sync {}
        let counts = completions.byID.withLock { $0 }
        #expect(counts.values.allSatisfy { $0 == 1 }, "completions per request: \(counts)", sourceLocation: sourceLocation)
        #expect(counts.count == completions.started.withLock { $0 }, sourceLocation: sourceLocation)
        try await server.close()
    }
}

extension Result where Success == Response, Failure == RequestError {
    /// The response body as text, or a description of the failure.
    var bodyText: String {
        switch self {
        case .success(let response): String(decoding: response.body, as: UTF8.self)
        case .failure(let error): "failure \(error.code): \(error.curlMessage ?? "")"
        }
    }
}
