import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Each timeout kind is reported as itself, in every style.
@Suite(.hangGuard) struct TimeoutTests {
    @Test(arguments: ClientStyle.allCases)
    func stalledTLSHandshakeIsAConnectTimeout(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let request = Request.get("https://127.0.0.1:\(server.stallPort)/").timeout(connect: .milliseconds(300))
        let error = await style.send(request, through: transport).failure
        #expect(error?.code == .connectTimedOut)
        #expect(error?.curlCode == 28)
    }

    @Test(arguments: ClientStyle.allCases)
    func silentServerIsAnIdleTimeout(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let error = await style.send(.get("never-respond").timeout(idle: .milliseconds(300)), through: transport).failure
        #expect(error?.code == .idleTimedOut)
    }

    @Test(arguments: ClientStyle.allCases)
    func stallMidBodyIsAnIdleTimeout(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        // A byte every 10 s: the stall outlasts any scheduling delay, and the test still ends at 400 ms.
        let request = Request.get("drip?bytes=3&interval=10000").timeout(idle: .milliseconds(400))
        #expect(await style.send(request, through: transport).failure?.code == .idleTimedOut)
    }

    @Test(arguments: ClientStyle.allCases)
    func slowButSteadyBodyIsATotalTimeoutNotAnIdleOne(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        // A byte every 50 ms for 5 s: only the 1 s total limit can end it (idle allows a 3 s stall).
        let request = Request.get("drip?bytes=100&interval=50").timeout(idle: .seconds(3), total: .seconds(1))
        let error = await style.send(request, through: transport).failure
        #expect(error?.code == .totalTimedOut, "\(String(describing: error))")
        #expect(error?.code.isTimeout == true)
    }

    @Test(arguments: ClientStyle.allCases)
    func configurationTimeoutAppliesAndTheRequestCanExtendIt(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.timeouts.idle = .milliseconds(250) }
        // Silent for 5 s, not 600 ms: the loop must get the CPU to notice the 250 ms limit passing
        // before the answer comes, and the test still ends at 250 ms.
        #expect(await style.send(.get("delay/5000"), through: transport).failure?.code == .idleTimedOut)
        // 30 s: room for a loaded machine's delays costs nothing when the answer comes after 600 ms.
        let extended = Request.get("delay/600").timeout(idle: .seconds(30))
        #expect(try await style.send(extended, through: transport).get().status == .ok)
    }
}
