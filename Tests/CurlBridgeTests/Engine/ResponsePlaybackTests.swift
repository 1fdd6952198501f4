@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// ``ResponsePlayback`` as a value against a receiver that records what it is offered: no
/// transport, no I/O.
@Suite("ResponsePlayback: a complete response played as a transfer reports one")
struct ResponsePlaybackTests {
    private func playback(bodySize: Int) -> ResponsePlayback {
        let body = Data((0..<bodySize).map { UInt8(truncatingIfNeeded: $0) })
        let head = ResponseHead(
            status: .ok, headerFields: [.contentLength: "\(bodySize)"], httpVersion: .http1_1, url: "http://example/")
        return ResponsePlayback(head: head, body: body)
    }

    @Test("The announcement, the head, then the body in pieces of at most chunkSize; it never ends the transfer itself")
    func playsInOrder() {
        let size = ResponsePlayback.chunkSize + 10
        var playback = playback(bodySize: size)
        let receiver = RecordingReceiver()

        guard case .delivered = playback.play(to: receiver) else { Issue.record("not delivered"); return }
        #expect(receiver.events == ["body \(size) 200", "head 200", "piece \(ResponsePlayback.chunkSize)", "piece 10"])
        #expect(receiver.received == playback.body && playback.delivered == size)
    }

    @Test("A receiver that wants no heads gets none")
    func noHeads() {
        var playback = playback(bodySize: 3)
        let receiver = RecordingReceiver()
        receiver.wantsHeads = false

        _ = playback.play(to: receiver)
        #expect(receiver.events == ["body 3 200", "piece 3"])
    }

    @Test("A pause stops the play; played again, the refused piece comes again and the head does not")
    func pauseAndResume() {
        let size = ResponsePlayback.chunkSize * 2
        var playback = playback(bodySize: size)
        let receiver = RecordingReceiver()
        receiver.verdicts = [.accept, .pause]

        guard case .paused = playback.play(to: receiver) else { Issue.record("not paused"); return }
        #expect(playback.delivered == ResponsePlayback.chunkSize)
        guard case .delivered = playback.play(to: receiver) else { Issue.record("not delivered"); return }
        #expect(receiver.events.filter { $0.hasPrefix("head") }.count == 1)
        #expect(receiver.events.filter { $0.hasPrefix("piece") }.count == 3)
        #expect(receiver.received == playback.body)
    }

    @Test("A refusal of the body's announcement or of a piece ends the play with that error")
    func refusals() {
        let refusal = RequestError(.fileIO, "no")
        var announced = playback(bodySize: 3)
        let refusing = RecordingReceiver()
        refusing.refusesBody = refusal
        guard case .refused(let first) = announced.play(to: refusing) else { Issue.record("not refused"); return }
        #expect(first.code == .fileIO && refusing.events == ["body 3 200"])

        var piece = playback(bodySize: 3)
        let failing = RecordingReceiver()
        failing.verdicts = [.fail(refusal)]
        guard case .refused(let second) = piece.play(to: failing) else { Issue.record("not refused"); return }
        #expect(second.code == .fileIO && piece.delivered == 0)
    }

    @Test("An empty body is delivered with its announcement and head only")
    func emptyBody() {
        var playback = playback(bodySize: 0)
        let receiver = RecordingReceiver()
        guard case .delivered = playback.play(to: receiver) else { Issue.record("not delivered"); return }
        #expect(receiver.events == ["body 0 200", "head 200"])
    }
}
