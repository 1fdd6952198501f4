import Foundation
import Testing

/// Random cancels, `cancelAll`, shutdowns, timeouts, retries and redirects around requests of
/// every style and verb, against the real transport and a server of its own: exactly one
/// completion per request, seen alike by the caller and the library; no cancel lost (one made
/// before the request could have ended otherwise ends it, and no later attempt reaches the
/// server); the server's count of sends as the schedule allows.
///
/// 2,000 schedules of a new seed per run; `scripts/interleave.sh` runs more (100,000 and up).
/// Environment: `INTERLEAVING_SCHEDULES` (default 2000), `INTERLEAVING_SEED` (default: random,
/// printed), `INTERLEAVING_ONLY` (one index: replays a problem line's schedule).
/// The time limit grows with the count (two minutes plus one per thousand schedules); a stuck
/// schedule is reported by the run itself after 20 s.
@Suite(.timeLimit(.minutes(2 + interleavingScheduleCount / 1000))) struct InterleavingTests {
    @Test func everyScheduleCompletesOnceAndNoCancelIsLost() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["INTERLEAVING_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))
        let count = interleavingScheduleCount
        let indices = environment["INTERLEAVING_ONLY"].flatMap { Int($0) }.map { [$0] } ?? Array(0..<count)
        print("interleaving seed \(seed) (replay: INTERLEAVING_SEED=\(seed) INTERLEAVING_ONLY=<index> scripts/interleave.sh)")
        let report = try await InterleavingHarness(seed: seed).run(indices)
        print("interleaving: \(report.summary)")
        #expect(report.schedules == indices.count)
        for problem in report.problems { Issue.record("\(problem)") }
        // The schedules reach every ending they are drawn for.
        if indices.count >= 1000 {
            for outcome in ["200", "cancelled", "transportShutDown", "totalTimedOut", "idleTimedOut"] {
                #expect(report.outcomes[outcome, default: 0] > 0, "no schedule ended with \(outcome)")
            }
        }
    }
}

/// How many schedules a run draws: `INTERLEAVING_SCHEDULES`, or 2,000.
private let interleavingScheduleCount = ProcessInfo.processInfo.environment["INTERLEAVING_SCHEDULES"].flatMap { Int($0) } ?? 2000
