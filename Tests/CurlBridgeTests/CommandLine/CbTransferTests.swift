import CurlBridgeTestServer
import Foundation
import Testing

/// `cb` downloading with `-o`: the file, the resume file an interrupted download leaves and
/// `--resume`, the progress bar (on a terminal only), and `--parallel`.
@Suite(.hangGuard) struct CbTransferTests {
    @Test func outputWritesTheFileAndNoProgressWhenPiped() async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("resource.bin")
        let run = try await Cb().run(["get", "-o", file.path, "\(server.httpURL)resource/300000"])
        #expect(run.status == 0, "\(run)")
        expectSameBytes(try? Data(contentsOf: file), resourceBytes(count: 300_000))
        #expect(run.output.isEmpty, "\(run)")
        #expect(run.error.isEmpty, "stderr is a pipe: no progress bar bytes at all: \(run)")
    }

    @Test func aCutDownloadResumesWithResumeToTheSameBytes() async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("resource.bin")
        let resumeFile = directory.appendingPathComponent("resource.bin.cb-resume")
        let cb = try Cb()

        let cut = try await cb.run(["get", "-o", file.path, "\(server.httpURL)resource/1000000?cut=400000"])
        #expect(cut.status == 18, "\(cut)")
        #expect(cut.error.contains("kept 400000 bytes of \(file.path): run again with --resume"), "\(cut)")
        #expect(!FileManager.default.fileExists(atPath: file.path), "only the partial file exists")
        #expect(FileManager.default.fileExists(atPath: resumeFile.path))

        let resumed = try await cb.run(["get", "--resume", "-v", "-o", file.path, "\(server.httpURL)resource/1000000"])
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.error.contains("* resuming at byte 400000"), "\(resumed)")
        #expect(resumed.error.contains("(resumed from byte 400000)"), "\(resumed)")
        #expect(resumed.error.contains("* HTTP/1.1 206 from"), "\(resumed)")
        expectSameBytes(try? Data(contentsOf: file), resourceBytes(count: 1_000_000))
        #expect(!FileManager.default.fileExists(atPath: resumeFile.path), "a finished download forgets its resume file")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == ["resource.bin"], "no partial file is left: \(leftovers)")
    }

    @Test func resumeWithNothingToResumeDownloadsFromTheStart() async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("fresh.bin")
        let run = try await Cb().run(["get", "--resume", "-o", file.path, "\(server.httpURL)resource/5000"])
        #expect(run.status == 0, "\(run)")
        expectSameBytes(try? Data(contentsOf: file), resourceBytes(count: 5000))
    }

    @Test func anErrorStatusNeverBecomesTheFile() async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("missing.bin")
        let run = try await Cb().run(["get", "-o", file.path, "\(server.httpURL)status/404"])
        #expect(run.status == 22, "\(run)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func theProgressBarIsDrawnOnATerminal() async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("resource.bin")
        let run = try await Cb().runInTerminal(["get", "-o", file.path, "\(server.httpURL)resource/2000000"])
        #expect(run.status == 0, "\(run)")
        // The last redraw, whatever came before it: carriage return, the final totals, then the
        // line is cleared to its end and ended.
        #expect(run.text.contains("\r100.0%  1.9 MiB / 1.9 MiB  "), "\(run)")
        #expect(run.text.contains("  done\u{1B}[K"), "\(run)")
        expectSameBytes(try? Data(contentsOf: file), resourceBytes(count: 2_000_000))
    }

    @Test func parallelDownloadsGoToADirectoryEachFileWhole() async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sizes = [70_000, 150_000, 1000, 400_000, 20_000, 90_000]
        let run = try await Cb().run(
            ["get", "--parallel", "3", "-o", directory.path + "/downloads/"] + sizes.map { "\(server.httpURL)resource/\($0)" })
        #expect(run.status == 0, "\(run)")
        for size in sizes {
            expectSameBytes(try? Data(contentsOf: directory.appendingPathComponent("downloads/\(size)")), resourceBytes(count: size))
        }
    }

    @Test func parallelOutputKeepsCommandLineOrder() async throws {
        let server = try await Fixture.server()
        // The first URL answers last: its body must still come first.
        let paths = ["delay/600", "delay/300", "echo/a", "echo/b", "delay/100"]
        let run = try await Cb().run(["get", "--parallel", "5"] + paths.map { "\(server.httpURL)\($0)" })
        #expect(run.status == 0, "\(run)")
        let text = run.text.replacingOccurrences(of: "\\/", with: "/")  // JSON may escape slashes
        let positions = paths.map { text.range(of: "\"path\":\"/\($0)\"")?.lowerBound }
        #expect(!positions.contains(nil), "\(run)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "\(run)")
    }

    @Test func parallelKeepsAtMostNTransfersAtOnce() async throws {
        let server = try await Fixture.server()
        // Two at a time over HTTP/1.1: two connections at most, each reused when its transfer ends.
        let run = try await Cb().run(["get", "--parallel", "2"] + (0..<6).map { "\(server.httpURL)delay/\(50 * $0)" })
        #expect(run.status == 0, "\(run)")
        let connections = run.text.replacingOccurrences(of: "}{", with: "}\n{").split(separator: "\n").map {
            try? JSONDecoder().decode(EchoReply.self, from: Data($0.utf8)).connectionID
        }
        #expect(connections.count == 6 && !connections.contains(nil), "\(run)")
        #expect(Set(connections).count <= 2, "\(connections)")
    }

    @Test func theFirstFailureInCommandLineOrderSetsTheExitCode() async throws {
        let server = try await Fixture.server()
        let run = try await Cb().run([
            "get", "--fail", "--parallel", "3", "\(server.httpURL)json", "\(server.httpURL)status/500", "http://127.0.0.1:1/",
        ])
        #expect(run.status == 22, "\(run)")
        #expect(run.text == #"{"id":42,"name":"CurlBridge"}"#, "\(run)")
    }
}

/// A new, empty directory in the temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cb-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Ctrl-C in the middle of `cb get -o`: the download stops, keeps its bytes and its resume file,
/// and `--resume` finishes it.
@Suite(.hangGuard) struct CbInterruptTests {
    @Test func ctrlCKeepsTheDownloadForResume() async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("resource.bin")
        let cb = try Cb()
        // The server sends 300000 bytes and then nothing: once the partial file holds them all,
        // Ctrl-C comes in the middle of the download whatever the machine's speed.
        let sent = 300_000
        let interrupted = try await cb.run(["get", "-o", file.path, "\(server.httpURL)resource/1000000?stall-after=\(sent)"]) { pid in
            let deadline = ContinuousClock.now + .seconds(60)
            while Self.partialBytes(in: directory) < sent, ContinuousClock.now < deadline { usleep(1000) }
            kill(pid, SIGINT)
        }
        #expect(interrupted.status == 130, "\(interrupted)")
        #expect(interrupted.error.contains("kept \(sent) bytes of \(file.path)"), "\(interrupted)")

        let resumed = try await cb.run(["get", "--resume", "-o", file.path, "\(server.httpURL)resource/1000000"])
        #expect(resumed.status == 0, "\(resumed)")
        expectSameBytes(try? Data(contentsOf: file), resourceBytes(count: 1_000_000))
    }

    /// The size of the download's partial file in `directory`, 0 while there is none.
    private static func partialBytes(in directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        guard let partial = names.first(where: { $0.hasSuffix(".curlbridge-partial") }) else { return 0 }
        let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(partial).path)
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }
}
