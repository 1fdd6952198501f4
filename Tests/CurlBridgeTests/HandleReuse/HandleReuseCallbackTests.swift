@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Logging
import Testing

/// A reused easy handle leads no callback back to the transfer it served before
/// (`CURLOPT_PRIVATE`, `WRITEDATA`, `HEADERDATA`, `XFERINFODATA`, `DEBUGDATA`): once a request has
/// completed, none of its events, progress closures or trace lines is called again, whatever
/// the next request on its handle does.
@Suite(.hangGuard) struct HandleReuseCallbackTests {
    /// The next request's body arrives in several pieces over a few hundred milliseconds, so any
    /// callback still pointing at the first request would be called many times.
    static let dripping = Request.get("drip?bytes=20&interval=15")

    @Test func eventsOfACompletedTransferAreNeverCalledAgain() async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let first = EventTally()
        let a = try await transport.send(.get("resource/300000"), counting: first).get()
        expectSameBytes(a.body, Data())  // the chunks went to the consumer
        let afterA = first.now
        #expect(afterA.heads == 1 && afterA.chunks > 0 && afterA.progress > 0 && afterA.completions == 1)

        let second = EventTally()
        let b = try await transport.reusingAHandle { try await transport.send(Self.dripping, counting: second).get() }
        #expect(b.status == .ok)
        await transport.drainEvents()
        #expect(first.now == afterA, "the first transfer's events were called during the second")
        // The second transfer's own events all reached it.
        let afterB = second.now
        #expect(afterB.heads == 1 && afterB.chunks > 0 && afterB.completions == 1)
    }

    @Test func aPlainRequestAfterOneWithEventsGetsItsBodyInMemory() async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let tally = EventTally()
        _ = try await transport.send(.get("resource/100000"), counting: tally).get()
        let afterA = tally.now
        let b = await transport.reusingAHandle { await transport.startTogether([.get("resource/100000")]) }
        expectSameBytes(try #require(b.first).get().body, resourceBytes(count: 100_000))
        await transport.drainEvents()
        #expect(tally.now == afterA)
    }

    @Test(arguments: ClientStyle.allCases)
    func aProgressClosureIsNotCalledForTheNextRequests(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let first = ProgressLog()
        _ = try await style.send(.post("echo").body(Data(count: 100_000)), progress: first.record, through: transport).get()
        let reportsOfA = first.all.count
        #expect(first.all.last?.bytesSent == 100_000)

        let plain = try await transport.reusingAHandle { try await style.send(Self.dripping, through: transport).get() }
        #expect(plain.body.count == 20)
        let second = ProgressLog()
        let withProgress = try await transport.reusingAHandle {
            try await style.send(.get("resource/50000"), progress: second.record, through: transport).get()
        }
        expectSameBytes(withProgress.body, resourceBytes(count: 50_000))
        await transport.drainEvents()
        #expect(first.all.count == reportsOfA, "the first request's progress closure was called again")
        // The second closure saw its own request only: nothing sent, 50,000 bytes received.
        #expect(second.all.allSatisfy { $0.bytesSent == 0 && $0.expectedBytesToSend == nil })
        #expect(second.all.last?.bytesReceived == 50_000)
    }

    @Test(arguments: ClientStyle.allCases)
    func aStreamsHandlersAreNotCalledForTheNextRequest(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let streamed = await style.stream(.get("resource/200000"), through: transport)
        #expect(streamed.error == nil && streamed.orderViolations == 0)
        expectSameBytes(streamed.body, resourceBytes(count: 200_000))

        let b = try await transport.reusingAHandle { try await style.send(.get("resource/100000"), through: transport).get() }
        expectSameBytes(b.body, resourceBytes(count: 100_000))
        let again = await transport.reusingAHandle { await style.stream(Self.dripping, through: transport) }
        #expect(again.error == nil && again.orderViolations == 0)
        #expect(again.body == Data(repeating: UInt8(ascii: "*"), count: 20))
    }

    /// A's trace logger (`CURLOPT_DEBUGFUNCTION`/`DEBUGDATA`) hears nothing of B.
    @Test(arguments: ClientStyle.allCases)
    func aTraceLoggerHearsNothingOfTheNextRequest(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let capture = LogCapture()
        let first = Request.get("echo/traced-first").logger(capture.logger(level: .trace))
        _ = try await style.send(first, through: transport).get()
        #expect(capture.lines.contains { $0.rendered.contains("/echo/traced-first") }, "the trace logger caught nothing of A")
        let linesOfA = capture.lines.count

        _ = try await transport.reusingAHandle { try await style.send(.get("echo/untraced-second"), through: transport).get() }
        await transport.drainEvents()
        #expect(capture.lines.count == linesOfA)
        #expect(!capture.lines.contains { $0.rendered.contains("untraced-second") })
    }
}
