import CurlBridgeTestServer
import Foundation
import Testing

/// `cb --cache DIR`: a second run answers from the disk cache the first one filled.
@Suite(.hangGuard) struct CbCacheTests {
    @Test func aSecondRunIsAnsweredFromTheCacheDirectory() async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = CountedOrigin(server) { n, _ in CountedOrigin.answer("answer \(n)\n", [("Cache-Control", "max-age=600")]) }
        let arguments = ["get", "-v", "--cache", directory.appendingPathComponent("cache").path, "\(server.httpURL)\(origin.path.dropFirst())"]
        let cb = try Cb()

        let first = try await cb.run(arguments)
        let second = try await cb.run(arguments)

        #expect(first.status == 0 && second.status == 0, "\(first) \(second)")
        #expect(first.output == Data("answer 1\n".utf8) && second.output == Data("answer 1\n".utf8), "\(second)")
        #expect(first.error.contains("cache: miss"), "\(first)")
        #expect(second.error.contains("cache: hit"), "\(second)")
        #expect(origin.count == 1)
    }
}

/// `cb get --queue DIR`: a batch through the durable queue; running it again fetches nothing more.
@Suite(.hangGuard) struct CbQueueTests {
    /// `--cache` with `--queue` (issue 35, item 10): the run flushes the cache before it exits,
    /// so a second batch, in a state directory of its own, is answered from it. The body is large
    /// (10 MiB, under the eighth of the 100 MiB cache an entry may take) so that its entry is
    /// still being written when the queue is done with the file.
    @Test func aQueuedDownloadIsInTheCacheForTheNextRun() async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = resourceBytes(count: 10 << 20)
        let origin = CountedOrigin(server) { _, _ in
            RouteResponse(headers: [(name: "Cache-Control", value: "max-age=600")], body: body)
        }
        let cb = try Cb()
        func batch(_ number: Int) async throws -> Cb.Run {
            try await cb.run([
                "get", "--queue", directory.appendingPathComponent("state-\(number)").path,
                "--cache", directory.appendingPathComponent("cache").path,
                "-o", directory.appendingPathComponent("out-\(number)").path + "/", "\(server.httpURL)\(origin.path.dropFirst())",
            ])
        }

        let first = try await batch(1)
        let second = try await batch(2)

        #expect(first.status == 0 && second.status == 0, "\(first) \(second)")
        let name = String(origin.path.split(separator: "/").last ?? "")
        for number in [1, 2] {
            let file = directory.appendingPathComponent("out-\(number)/\(name)")
            expectSameBytes(try? Data(contentsOf: file), body)
        }
        #expect(origin.count == 1, "the second batch is answered from the first one's cache")
    }

    @Test func aBatchFinishesAndARerunFetchesNothingAgain() async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = UUID().uuidString
        let urls = ["\(server.httpURL)resource/300000?count=\(key)", "\(server.httpURL)resource/5000?count=\(key)&version=2"]
        let arguments = ["get", "-v", "--queue", directory.appendingPathComponent("state").path, "-o", directory.appendingPathComponent("out/").path] + urls
        let cb = try Cb()

        let first = try await cb.run(arguments)
        let second = try await cb.run(arguments)

        #expect(first.status == 0, "\(first)")
        #expect(first.error.contains("* 300000: finished, 300000 bytes, sha256 \(sha256Hex(resourceBytes(count: 300_000)))"), "\(first)")
        #expect(first.error.contains("* 5000: finished, 5000 bytes, sha256 \(sha256Hex(resourceBytes(count: 5000, version: 2)))"), "\(first)")
        // Each download's end is reported once, in the run that ended it.
        #expect(first.error.components(separatedBy: ": finished,").count == 3, "\(first)")
        #expect(!second.error.contains("finished"), "\(second)")
        expectSameBytes(try? Data(contentsOf: directory.appendingPathComponent("out/300000")), resourceBytes(count: 300_000))
        expectSameBytes(try? Data(contentsOf: directory.appendingPathComponent("out/5000")), resourceBytes(count: 5000, version: 2))
        #expect(second.status == 0, "\(second)")
        #expect(TestServer.requestCount(key: key) == 2, "the second run finds both finished")
    }
}
