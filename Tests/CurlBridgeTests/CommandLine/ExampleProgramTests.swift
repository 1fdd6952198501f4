import Foundation
import Testing

/// The examples under Examples/ check what they show and exit non-zero when it does not hold;
/// each runs against an embedded server of its own, so here they only have to end with 0.
@Suite(.hangGuard) struct ExampleProgramTests {
    @Test(arguments: ["BlockingWorkers", "LegacyCallbacks", "PlayWhileDownloading", "ResumableDownloader"])
    func exampleRunsAndItsChecksPass(_ name: String) async throws {
        let (status, lines) = try await BuiltExecutable(name).run()
        #expect(status == 0, "\(name) ended with \(status):\n\(lines.joined(separator: "\n"))")
        #expect(lines.last == "ok", "\(name):\n\(lines.joined(separator: "\n"))")
    }
}
