import Foundation
import Testing

/// `exit(0)` with 100 TLS requests in flight (`CurlBridgeProbe exit-storm`): the process must end
/// with status 0, not a crash in an exit handler. `scripts/exit-storm.sh 200` runs it 200 times.
@Suite(.hangGuard) struct ExitStormTests {
    @Test func exitWithAHundredTLSRequestsInFlightDoesNotCrash() async throws {
        let probe = try BuiltExecutable("CurlBridgeProbe")
        for _ in 0..<5 {
            let seed = UInt64.random(in: 1...UInt64(UInt32.max))
            let (status, lines) = try await probe.run("exit-storm", String(seed))
            #expect(status == 0, "exit-storm \(seed) ended with \(status): \(lines.joined(separator: "\n"))")
            #expect(lines.contains { $0.hasPrefix("exit-storm seed=\(seed)") }, "\(lines)")
        }
    }
}
