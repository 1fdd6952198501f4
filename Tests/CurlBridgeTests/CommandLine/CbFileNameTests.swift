import CurlBridgeTestServer
import Foundation
import Testing

/// `cb get -o DIR/` names each file after its URL (``RemoteFileName``): a hostile URL list cannot
/// write outside DIR nor hide a file in it, with or without `--queue` (issue 35, item 6).
@Suite(.hangGuard) struct CbFileNameTests {
    /// The attack: `..%2F..%2Fpwned1`, which `URL.lastPathComponent` decodes to
    /// `../../pwned1`, and a dot-file name. Both are refused before anything is sent.
    @Test(arguments: [false, true])
    func aTraversalOrHiddenNameIsRefusedBeforeAnythingIsSent(queued: Bool) async throws {
        let server = try await Fixture.server()
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let key = UUID().uuidString
        let out = root.appendingPathComponent("a/b/out/").path + "/"
        let cb = try Cb()

        for (name, reason) in [("..%2F..%2Fpwned1", "\"..%2F..%2Fpwned1\" starts with a dot"), (".bashrc", "\".bashrc\" starts with a dot")] {
            let run = try await cb.run(
                ["get"] + Self.queue(queued, in: root) + ["-o", out, "\(server.httpURL)echo/\(name)?count=\(key)"])
            #expect(run.status == 23, "\(run)")
            #expect(run.error.contains("cannot name a file after the URL: its last path segment \(reason)"), "\(run)")
        }
        #expect(TestServer.requestCount(key: key) == 0, "nothing is sent")
        #expect(Self.files(under: root).isEmpty, "nothing is written: \(Self.files(under: root))")
    }

    /// Escapes that decode to `../../pwned2` stay escapes: one file of that literal name, inside
    /// the directory.
    @Test(arguments: [false, true])
    func anEncodedTraversalIsOneFileInsideTheDirectory(queued: Bool) async throws {
        let server = try await Fixture.server()
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let name = "%2e%2e%2F%2e%2e%2Fpwned2"
        let run = try await Cb().run(
            ["get"] + Self.queue(queued, in: root) + ["-o", root.appendingPathComponent("a/b/out/").path + "/", "\(server.httpURL)echo/\(name)"])

        #expect(run.status == 0, "\(run)")
        #expect(Self.files(under: root) == ["a/b/out/\(name)"], "\(Self.files(under: root))")
        let reply = try? JSONDecoder().decode(EchoReply.self, from: Data(contentsOf: root.appendingPathComponent("a/b/out/\(name)")))
        #expect(reply?.path == "/echo/\(name)", "the file holds the body of the URL it is named after")
    }

    /// `--queue DIR` in `root`, or nothing.
    private static func queue(_ queued: Bool, in root: URL) -> [String] {
        queued ? ["--queue", root.appendingPathComponent("state").path] : []
    }

    /// The regular files under `root`, as paths relative to it, sorted; the queue's state
    /// directory (its journal and lock) left out.
    private static func files(under root: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            guard !path.hasPrefix("state"), enumerator?.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            files.append(path)
        }
        return files.sorted()
    }
}
