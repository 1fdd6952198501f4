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
