@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// Progress reports: throttled where curl reports them, final at completion, in order everywhere.
@Suite(.hangGuard) struct ProgressTests {
    @Test func reportsAreAtLeastFiftyMillisecondsApartAndTheLastIsExact() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        // Timestamps taken inside the transport's own event, not where a test task gets to run.
        let reports = Mutex<[(at: ContinuousClock.Instant, progress: TransferProgress)]>([])
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response, RequestError>, Never>) in
            var events = TransferEvents { continuation.resume(returning: $0) }
            events.onProgress = { progress in reports.withLock { $0.append((ContinuousClock.now, progress)) } }
            // 40 bytes 25 ms apart: about a second of steady progress calls from curl.
            transport.start(.get("drip?bytes=40&interval=25"), events: events)
        }
        #expect(try result.get().status == .ok)
        let all = reports.withLock { $0 }
        let throttled = all.dropLast()  // the final report comes at completion, whenever that is
        #expect(throttled.count >= 2)
        for (earlier, later) in zip(throttled, throttled.dropFirst()) {
            // The throttle reads a coarse clock (a few ms of resolution): allow for it.
            #expect(later.at - earlier.at >= .milliseconds(40))
        }
        #expect(all.last?.progress == TransferProgress(
            bytesReceived: 40, expectedBytesToReceive: 40, bytesSent: 0, expectedBytesToSend: nil))
    }

    @Test(arguments: ClientStyle.allCases)
    func finalReportArrivesBeforeTheOutcomeInEveryStyle(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let progress = ProgressLog()
        let response = try await style.send(.post("echo").body(Data(count: 200_000)), progress: progress.record, through: transport).get()
        // The closure has already run for the last time when the outcome is delivered.
        let last = try #require(progress.all.last)
        #expect(last.bytesSent == 200_000 && last.expectedBytesToSend == 200_000)
        #expect(last.bytesReceived == Int64(response.body.count))
        #expect(last.fractionSent == 1)
    }
}
