import Foundation
import Testing

/// A disk that fills up mid-download, simulated in a child process by a 1 MiB file size limit.
@Suite(.hangGuard) struct DiskFullTests {
    @Test func fullDiskIsFileIOAndLeavesTheUsersFileAndNoPartialFile() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let lines = try await ProbeProcessTests().runProbe("disk-full", scratch.url.path)
        for style in ["blocking", "async", "callback"] {
            #expect(lines.contains("disk-full style=\(style) code=fileIO untouched=true leftovers=0"), "\(lines)")
        }
    }

    @Test func aFullDiskPausesTheQueueAndLosesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let lines = try await ProbeProcessTests().runProbe("queue-disk-full", scratch.url.path)
        #expect(lines.contains("queue-disk-full state=paused code=fileIO kept=true finished=true identical=true"), "\(lines)")
    }
}
