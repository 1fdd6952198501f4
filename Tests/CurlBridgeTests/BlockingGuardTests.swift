@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The blocking client refuses to wait where waiting freezes or deadlocks, and only there.
@Suite(.hangGuard) struct BlockingGuardTests {
    @Test func blockingCallInsideATaskIsRefused() async throws {
        let listener = try SilentListener()
        let client = BlockingClient(transport: Transport())
        let error = sendBlocking(client, .get(listener.url)).failure
        #expect(error?.code == .blockingRefused)
        #expect(error?.message.contains("task") == true)
        #expect(listener.connectionAttempts() == 0)
    }

    @Test func blockingCallInsideATaskIsAllowedWhenThePolicySaysSo() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let client = BlockingClient(transport: transport, policy: .init(allowsInsideTasks: true))
        #expect(try sendBlocking(client, .get("echo")).get().status == .ok)
    }

    @Test func blockingCallOnAWorkerThreadIsAllowed() async throws {
        let client = BlockingClient(transport: Fixture.transport(try await Fixture.server()))
        let result = await onWorkerThread { sendBlocking(client, .get("echo")) }
        #expect(try result.get().status == .ok)
    }

    @Test func blockingCallOnTheMainActorIsRefused() async throws {
        let listener = try SilentListener()
        // Tasks are allowed, so only the main-thread rule can refuse.
        let client = BlockingClient(transport: Transport(), policy: .init(allowsInsideTasks: true))
        // Under Swift Testing the main actor runs on the main queue, which after the runtime's
        // dispatchMain() may be served off the main thread: either rule must refuse.
        let error = await MainActor.run { sendBlocking(client, .get(listener.url)).failure }
        #expect(error?.code == .blockingRefused)
        #expect(error?.message.contains("main") == true)
        #expect(listener.connectionAttempts() == 0)
    }

    @Test func blockingCallOnTheTransportsOwnQueueIsRefusedWhateverThePolicy() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let permissive = BlockingClient(transport: transport, policy: .init(allowsMainThread: true, allowsInsideTasks: true))
        let inner = await withCheckedContinuation { (continuation: CheckedContinuation<RequestError?, Never>) in
            transport.start(.get("echo"), events: TransferEvents { _ in
                continuation.resume(returning: sendBlocking(permissive, .get("echo")).failure)
            })
        }
        #expect(inner?.code == .blockingRefused)
        #expect(inner?.message.contains("deadlock") == true)
    }

    @Test func waitIsBoundedByTheTotalTimeoutEvenIfTheTransferIgnoresIt() async throws {
        // Total 300 ms: curl enforces it itself, and the wait would give up 2 s later regardless.
        let client = BlockingClient(transport: Fixture.transport(try await Fixture.server()))
        let result = await onWorkerThread { sendBlocking(client, Request.get("never-respond").timeout(total: .milliseconds(300))) }
        #expect(result.failure?.code == .totalTimedOut)
    }
}

/// The cases that need a process of their own: the main queue served after `dispatchMain()`
/// (off the main thread on Linux), and resource accounting without other tests running.
@Suite(.hangGuard) struct ProbeProcessTests {
    /// Runs the probe executable built beside the tests and returns its output lines.
    func runProbe(_ arguments: String...) async throws -> [String] {
        // The test binary sits in the build products directory, beside the executables.
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let directory = testBinary.deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map { $0.appendingPathComponent("CurlBridgeProbe") }
        let executable = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
                                      "build the CurlBridgeProbe product first (swift build)")
        let (status, output) = try await runChildProcess(executable, arguments)
        #expect(status == 0)
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func blockingCallOnTheMainQueueAfterDispatchMainIsRefused() async throws {
        let lines = try await runProbe("main-queue")
        #expect(lines.contains("main-thread isMainThread=true refused=blockingRefused"))
        #expect(lines.contains("main-queue isMainThread=false"))
        #expect(lines.contains("main-queue refused=blockingRefused"))
        #expect(lines.contains("main-queue nested-queue refused=blockingRefused"))
        #expect(lines.contains("worker allowed=200"))
    }

    @Test func transportsReleaseTheirSocketsAndThreads() async throws {
        let lines = try await runProbe("resources")
        let report = try #require(lines.first { $0.hasPrefix("resources ") })
        let fields = Dictionary(uniqueKeysWithValues: report.dropFirst("resources ".count).split(separator: " ").compactMap { pair -> (String, Int)? in
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let value = Int(parts[1]) else { return nil }
            return (String(parts[0]), value)
        })
        let descriptorsBefore = try #require(fields["fdBefore"]), descriptorsAfter = try #require(fields["fdAfter"])
        let threadsBefore = try #require(fields["threadsBefore"]), threadsAfter = try #require(fields["threadsAfter"])
        #expect(fields["requests"] == 300)
        #expect(fields["failures"] == 0)
        #expect(descriptorsAfter <= descriptorsBefore)
        #expect(threadsAfter <= threadsBefore + 4)
    }
}
