import Foundation
import Testing

/// The cancellation storm of `CurlBridgeStorm cancel` (see Sources/CurlBridgeStorm), at a size
/// that keeps the test to seconds; `scripts/cancel-storm.sh` runs the long one and prints the
/// latency figures, which are not asserted here.
@Suite(.hangGuard) struct CancellationStormTests {
    @Test func everyRequestCancelledAtARandomPhaseCompletesExactlyOnce() async throws {
        let seed = UInt64.random(in: 1...UInt64(UInt32.max))
        let (status, lines) = try await BuiltExecutable("CurlBridgeStorm").run("cancel", "--count", "1000", "--seed", String(seed))
        let output = lines.joined(separator: "\n")
        print("cancellation storm seed \(seed) (replay: swift run CurlBridgeStorm cancel --count 1000 --seed \(seed))")
        let report = try #require(reportFields(lines, prefix: "storm seed="), "no report in:\n\(output)")
        #expect(report["requests"] == 1000, "\(output)")
        #expect(report["completions"] == 1000, "\(output)")
        #expect(report["lost"] == 0, "\(output)")
        #expect(report["duplicates"] == 0, "\(output)")
        #expect(report["unexpected"] == 0, "\(output)")
        #expect((report["cancelled"] ?? 0) > 0, "\(output)")
        #expect(report["handlesAfter"] == 0, "\(output)")
        #expect(report["transfersAfter"] == 0, "\(output)")
        #expect((report["fdAfter"] ?? .infinity) <= (report["fdBefore"] ?? 0), "\(output)")
        #expect((report["threadsAfter"] ?? .infinity) <= (report["threadsBefore"] ?? 0) + 4, "\(output)")
        #expect(status == 0, "\(output)")
    }
}
