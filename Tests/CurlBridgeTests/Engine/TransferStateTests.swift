@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// ``TransferState`` as a value: the verdicts a transfer's callbacks carry out, fed the lines,
/// pieces, sends and counts curl would report, with no curl and no I/O.
@Suite struct TransferStateTests {
    static let url = "https://origin.test/a"

    /// The state of a transfer of `request`, begun at moment 0.
    static func state(_ request: Request = .get(url)) throws -> TransferState {
        let prepared = try request.prepared(with: RequestDefaults(Configuration())).get()
        return TransferState(prepared, now: 0)
    }

    /// Feeds `text` (one header line, its CRLF included) at `now`; returns the guard's verdict and,
    /// for a kept line, the step.
    static func feed(
        _ state: inout TransferState, _ text: String, wantsHeads: Bool = true, at now: UInt64 = 1
    ) -> (ResponseHeadGuard.Verdict, TransferState.LineStep?) {
        Array(text.utf8).withUnsafeBytes { line in
            let verdict = state.inspect(line, at: now)
            if case .reject = verdict { return (verdict, nil) }
            return (verdict, state.keep(line, wantsHeads: wantsHeads))
        }
    }

    static func head(_ status: Int) -> ResponseHead {
        ResponseHead(status: .init(code: status), headerFields: HTTPFields(), httpVersion: .http1_1, url: url)
    }

    @Test func aFinalHeadEndsAtItsBlankLineAndIsDelivered() throws {
        var state = try Self.state()
        #expect(Self.feed(&state, "HTTP/1.1 200 OK\r\n") == (.accept, .readOn))
        #expect(Self.feed(&state, "Content-Length: 5\r\n") == (.accept, .readOn))
        #expect(state.hasFinalHead == false)
        #expect(Self.feed(&state, "\r\n") == (.finalHeadEnded(status: 200, declaredLength: 5), .headEnded))
        #expect(state.hasFinalHead == true)
        let block = state.headerBlock()
        #expect(block.fields[.contentLength] == "5")
        let verdict = state.headArrived(Self.head(200))
        #expect(verdict == .deliver)
        let taken = state.delivered(refusal: nil)
        #expect(taken)
        #expect(state.headDelivered && state.failure == nil)
        // Trailers after the head are kept, but no head ends again.
        #expect(Self.feed(&state, "\r\n").1 == .readOn)
    }

    @Test func aReceiverThatWantsNoHeadsIsNeverAskedToBuildOne() throws {
        var state = try Self.state()
        #expect(Self.feed(&state, "HTTP/1.1 204 No Content\r\n", wantsHeads: false) == (.accept, .readOn))
        #expect(Self.feed(&state, "\r\n", wantsHeads: false) == (.finalHeadEnded(status: 204, declaredLength: nil), .readOn))
    }

    @Test func aRefusedLineIsTheFailure() throws {
        var state = try Self.state()
        _ = Self.feed(&state, "HTTP/1.1 200 OK\r\n")
        let (verdict, step) = Self.feed(&state, "Content-Length: 5\r\nContent-Length: 6\r\n")
        guard case .reject(let rejection) = verdict else { Issue.record("accepted \(verdict)"); return }
        #expect(step == nil)
        #expect(state.failure?.code == rejection.code)
        #expect(state.failure?.message == rejection.reason)
    }

    /// A folded line of a space and a bare LF is as short as a blank line: it continues the head
    /// (the guard says what a line is; its length does not).
    @Test func aShortFoldedLineDoesNotEndTheHead() throws {
        var state = try Self.state()
        _ = Self.feed(&state, "HTTP/1.1 200 OK\r\n")
        _ = Self.feed(&state, "X-A: a\r\n")
        #expect(Self.feed(&state, " \n") == (.accept, .readOn))
        #expect(Self.feed(&state, "\t\n") == (.accept, .readOn))
        #expect(Self.feed(&state, "X-B: b\r\n") == (.accept, .readOn))
        #expect(Self.feed(&state, "\n") == (.finalHeadEnded(status: 200, declaredLength: nil), .headEnded))
        #expect(state.headerBlock().fields[HTTPField.Name("X-B")!] == "b")
    }

    @Test func theFirstFailureWins() throws {
        var state = try Self.state()
        let taken = state.delivered(refusal: RequestError(.unacceptableStatus, "refused"))
        #expect(!taken)
        state.fail(RequestError(.bodyTooLarge, "later"))
        #expect(state.failure?.code == .unacceptableStatus)
    }

    @Test func aChallenged401WaitsAndIsDroppedWhenCurlAnswers() throws {
        var state = try Self.state(Request.get(Self.url).credential(.digest(username: "ada", password: "pw")))
        _ = Self.feed(&state, "HTTP/1.1 401 Unauthorized\r\n")
        #expect(Self.feed(&state, "\r\n").1 == .headEnded)
        let verdict = state.headArrived(Self.head(401))
        #expect(verdict == .hold)
        // curl answered the challenge: a new status line, and the held head was not final.
        _ = Self.feed(&state, "HTTP/1.1 200 OK\r\n")
        let released = state.bodyArrived(at: 2)
        #expect(released == nil)
        let due = state.finished(succeeded: true)
        #expect(due == nil)
    }

    @Test func aHeld401IsDeliveredWithItsBodyOrAtTheEnd() throws {
        var withBody = try Self.state(Request.get(Self.url).credential(.digest(username: "ada", password: "pw")))
        let verdict = withBody.headArrived(Self.head(401))
        #expect(verdict == .hold)
        let released = withBody.bodyArrived(at: 2)
        #expect(released?.status.code == 401)
        let released2 = withBody.bodyArrived(at: 3)
        #expect(released2 == nil)

        var bodiless = try Self.state(Request.get(Self.url).credential(.digest(username: "ada", password: "pw")))
        let verdict2 = bodiless.headArrived(Self.head(401))
        #expect(verdict2 == .hold)
        let due = bodiless.finished(succeeded: false)
        #expect(due == nil)
        let verdict3 = bodiless.headArrived(Self.head(401))
        #expect(verdict3 == .hold)
        let due2 = bodiless.finished(succeeded: true)
        #expect(due2?.status.code == 401)
    }

    @Test func a401WithNothingToAnswerItIsFinalAtOnce() throws {
        var state = try Self.state(Request.get(Self.url).basicAuth(username: "ada", password: "pw"))
        let verdict = state.headArrived(Self.head(401))
        #expect(verdict == .deliver)
    }

    @Test func anUnansweredIdempotentRequestGoesOnceMoreThenFails() throws {
        var state = try Self.state()
        let mayGo = state.mayStartSending()
        #expect(mayGo)
        let mayGo2 = state.mayStartSending()  // the reused connection closed unanswered: once more
        #expect(mayGo2)
        let mayGo3 = state.mayStartSending()
        #expect(!mayGo3)
        #expect(state.failure?.code == .connectionLost)
        #expect(state.failure?.message.contains("twice") == true)
    }

    @Test func anUnansweredPostIsNotSentTwice() throws {
        var state = try Self.state(.post(Self.url))
        let mayGo = state.mayStartSending()
        #expect(mayGo)
        let mayGo2 = state.mayStartSending()
        #expect(!mayGo2)
        #expect(state.failure?.code == .connectionLost)
        #expect(state.failure?.message.contains("a POST request is not sent twice") == true)
    }

    @Test func aSendAfterAnAnswerIsNotARepeat() throws {
        var state = try Self.state(.post(Self.url))
        let mayGo = state.mayStartSending()
        #expect(mayGo)
        _ = Self.feed(&state, "HTTP/1.1 401 Unauthorized\r\n")
        let mayGo2 = state.mayStartSending()  // curl answering a challenge
        #expect(mayGo2)
        #expect(state.failure == nil)
    }

    @Test func thePhaseFollowsTheConnectionAndTheHead() throws {
        var state = try Self.state()
        #expect(state.phase(connected: false) == .connecting)
        #expect(state.phase(connected: true) == .readingHead)
        _ = Self.feed(&state, "HTTP/1.1 200 OK\r\n")
        _ = Self.feed(&state, "\r\n")
        #expect(state.phase(connected: true) == .readingBody)
    }

    @Test(arguments: [
        // connect ms, total ms, connected, whether a timeout is the connect timeout's
        (Int?.some(100), Int?.some(200), false, true),
        (100, 100, false, true),
        (300, 200, false, false),
        (100, nil, false, true),
        (nil, 200, false, false),
        (100, 200, true, false),
    ])
    func aTimeoutIsTheConnectTimeoutsOnlyWhileItIsTheTighterLimit(connect: Int?, total: Int?, connected: Bool, expected: Bool) throws {
        let timeouts = Timeouts(
            connect: connect.map { .milliseconds($0) }, idle: nil, total: total.map { .milliseconds($0) })
        var request = Request.get(Self.url)
        request.timeouts = timeouts
        let state = try Self.state(request)
        #expect(state.connectLimitApplied(connected: connected) == expected)
    }

    @Test func movementRestartsTheIdleClockAndPausesAreKept() throws {
        let idle = Duration.milliseconds(10)
        let limit = UInt64(10_000_000)
        var state = try Self.state(Request.get(Self.url).timeout(idle: idle))
        #expect(state.idleClock?.deadline(connectedAfter: 0) == limit)
        _ = Self.feed(&state, "HTTP/1.1 200 OK\r\n", at: 5)
        #expect(state.idleClock?.deadline(connectedAfter: 0) == 5 + limit)
        _ = state.progressed(sent: 0, received: 0, at: 7)  // nothing moved
        #expect(state.idleClock?.deadline(connectedAfter: 0) == 5 + limit)
        _ = state.progressed(sent: 0, received: 100, at: 9)
        #expect(state.idleClock?.deadline(connectedAfter: 0) == 9 + limit)

        #expect(state.isPaused == false)
        let resumed = state.resumeSending(at: 10)  // not paused: nothing to resume
        #expect(!resumed)
        state.pauseSending()
        state.pauseReceiving()
        #expect(state.isPaused && state.isSendPaused && state.isReceivePaused)
        let resumed2 = state.resumeSending(at: 11)
        #expect(resumed2)
        state.resumeReceiving(at: 12)
        #expect(state.isPaused == false)
        #expect(state.idleClock?.deadline(connectedAfter: 0) == 12 + limit)
    }
}
