import Foundation
import Testing

/// The download queue's crash proof, `CurlBridgeStorm queue-crash` (see Sources/CurlBridgeStorm),
/// at a size that keeps the test to seconds: a child downloading 3 files of 24 MB is killed with
/// `SIGKILL` 5 times and restarted; `scripts/queue-crash-test.sh` runs the 100-kill, 1 GiB one.
@Suite(.hangGuard) struct QueueCrashTests {
    @Test func filesSurviveKillsWholeAndEachKillCostsAtMostAnInterval() async throws {
        let seed = UInt64.random(in: 1...UInt64(UInt32.max))
        let arguments = ["queue-crash", "--kills", "5", "--files", "3", "--size", "24000000", "--interval", "1048576", "--seed", String(seed)]
        let (status, lines) = try await BuiltExecutable("CurlBridgeStorm").run(arguments)
        let output = lines.joined(separator: "\n")
        print("queue crash seed \(seed) (replay: swift run CurlBridgeStorm \(arguments.joined(separator: " ")))")
        let report = try #require(reportFields(lines, prefix: "queue-crash kills="), "no report in:\n\(output)")
        #expect(report["kills"] == 5, "\(output)")
        #expect(report["ok"] == 1, "\(output)")
        #expect((report["served"] ?? 0) >= 72_000_000, "\(output)")
        #expect((report["discardedPerKillMax"] ?? .infinity) <= report["discardedLimit"] ?? 0, "\(output)")
        #expect(status == 0, "\(output)")
    }
}
