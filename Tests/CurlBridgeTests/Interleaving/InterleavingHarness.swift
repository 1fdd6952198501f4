@testable import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation
import Synchronization

/// Runs seeded ``InterleavingSchedule``s against a server of its own, many at once, each judged
/// by ``InterleavingVerdict``; the problems come back as lines naming the seed and index that
/// replay them.
struct InterleavingHarness {
    /// What a run found.
    struct Report {
        var schedules = 0
        var problems: [String] = []
        /// How many schedules ended with each outcome.
        var outcomes: [String: Int] = [:]
        var seconds = 0.0

        var summary: String {
            let counts = outcomes.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
            return "\(schedules) schedules, \(problems.count) problems, " + String(format: "%.1f s", seconds) + "; outcomes \(counts)"
        }
    }

    let seed: UInt64
    /// Schedules running at once.
    var concurrency = 48

    /// Runs schedules `indices` of the seed.
    func run(_ indices: [Int]) async throws -> Report {
        let server = try await TestServer.start()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("curlbridge-interleave-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let uploadFile = scratch.appendingPathComponent("upload.bin")
        try TestServer.patternBody(0..<InterleavingRun.uploadSize).write(to: uploadFile)
        let environment = InterleavingRun.Environment(
            plain: server.httpURL.absoluteString, secure: server.httpsURL.absoluteString,
            testCA: try CertificateBundle(pem: TestServer.certificateAuthorityPEM), uploadFile: uploadFile, scratch: scratch)
        let (seed, concurrency) = (self.seed, self.concurrency)
        // Off the cooperative pool: the schedules wait on semaphores.
        let report = await onWorkerThread { Self.run(indices, seed: seed, concurrency: concurrency, environment: environment) }
        try FileManager.default.removeItem(at: scratch)
        try await server.shutdown()
        return report
    }

    private static func run(_ indices: [Int], seed: UInt64, concurrency: Int, environment: InterleavingRun.Environment) -> Report {
        let slots = DispatchSemaphore(value: concurrency)
        let finished = DispatchGroup()
        let report = PosixLock(Report())
        let started = MonotonicClock.now
        for index in indices {
            slots.wait()
            finished.enter()
            let schedule = InterleavingSchedule.draw(seed: seed, index: index)
            InterleavingRun(schedule: schedule, environment: environment).run { observation in
                let problems = InterleavingVerdict(schedule, disruptedAt: observation.disruptedAt).problems(in: observation, of: schedule)
                report.withLock { report in
                    report.schedules += 1
                    report.outcomes[observation.outcomes.first ?? "none", default: 0] += 1
                    guard !problems.isEmpty else { return }
                    let at = observation.disruptedAt.map { String(format: " disrupted at %.1f ms;", $0) } ?? ""
                    report.problems.append(
                        "seed \(seed) index \(index) [\(schedule)]\(at) \(observation.arrivals) sends: \(problems.joined(separator: "; "))")
                }
                slots.signal()
                finished.leave()
            }
        }
        finished.wait()
        return report.withLock { report in
            report.seconds = Double(MonotonicClock.now - started) / 1e9
            return report
        }
    }
}
