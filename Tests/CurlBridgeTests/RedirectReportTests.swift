import CurlBridge
import Foundation
import Synchronization
import Testing

/// A followed redirect is reported to the monitors once per hop, whoever decides to follow it:
/// the request machine at the head (a streamed response) or at the end (a response in memory).
@Suite("Redirects reported once", .hangGuard)
struct RedirectReportTests {
    /// How the response is taken: whole, so the redirect is decided at each hop's end; or
    /// streamed, so it is decided at each hop's head.
    enum Taking: String, CaseIterable, CustomStringConvertible, Sendable {
        case inMemory, streamed

        var description: String { rawValue }
    }

    @Test("a chain of three redirects reports each hop exactly once, in order", arguments: ClientStyle.allCases, Taking.allCases)
    func eachHopOnce(style: ClientStyle, taking: Taking) async throws {
        let server = try await Fixture.server()
        let reported = Mutex<[String]>([])
        let (completed, signal) = AsyncStream<Void>.makeStream()
        let monitor = ClosureEventMonitor(
            didRedirect: { hop, _ in reported.withLock { $0.append(URL(string: hop.url)?.path ?? hop.url) } },
            requestDidComplete: { _, _, _, _ in signal.yield() })
        let transport = Fixture.transport(server) { $0.eventMonitors = [monitor] }
        let request = Request.get("redirect/3")
        let redirects: [RedirectHop]
        switch taking {
        case .inMemory:
            redirects = try await style.send(request, through: transport).get().redirects
        case .streamed:
            let outcome = await style.stream(request, through: transport)
            #expect(outcome.error == nil)
            redirects = outcome.head?.redirects ?? []
        }
        _ = await completed.first { _ in true }
        let expected = ["/redirect/3", "/redirect/2", "/redirect/1"]
        #expect(redirects.map { URL(string: $0.url)?.path ?? $0.url } == expected)
        #expect(reported.withLock { $0 } == expected)
    }
}
