import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Cookie files: a persistent jar across transports, and Netscape files shared with the curl tool.
@Suite(.hangGuard) struct CookiePersistenceTests {
    @Test(arguments: ClientStyle.allCases)
    func persistentJarIsSavedAtShutdownAndLoadedByTheNextTransport(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("cookies.txt")
        let first = Fixture.transport(server) { $0.cookies = .persistent(file: file) }
        let expiry = Int(Date().timeIntervalSince1970) + 86_400
        _ = try await style.send(CookieTests.setting(
            "session=1", "lasting=2; Max-Age=86400", "hidden=3; HttpOnly; Path=/echo"), through: first).get()
        await first.shutdown()

        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"))
        #expect(text.contains("#HttpOnly_127.0.0.1\tFALSE\t/echo\tFALSE\t0\thidden\t3\n"))
        #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\t1\n"))
        let lasting = try #require(text.split(separator: "\n").first { $0.hasSuffix("\tlasting\t2") })
        let savedExpiry = try #require(Int(lasting.split(separator: "\t")[4]))
        #expect(abs(savedExpiry - expiry) < 3600)
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(scratch.contents == ["cookies.txt"])

        let second = Fixture.transport(server) { $0.cookies = .persistent(file: file) }
        #expect(try await CookieTests.receivedCookies(style, through: second).sorted() == ["hidden=3", "lasting=2", "session=1"])
    }

    @Test func releasingATransportSavesItsJar() async throws {
        let server = try await Fixture.server()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("cookies.txt")
        do {
            let transport = Fixture.transport(server) { $0.cookies = .persistent(file: file) }
            try #require(transport.cookies).add(Cookie(name: "released", value: "1", domain: "127.0.0.1"))
        }
        try await waitFor("the released transport's cookie file") { FileManager.default.fileExists(atPath: file.path) }
        let reloaded = Fixture.transport(server) { $0.cookies = .persistent(file: file) }
        #expect(try #require(reloaded.cookies).cookies().map(\.name) == ["released"])
    }

    @Test func aMissingFileIsAnEmptyJarAndSaveNeedsAFile() async throws {
        let server = try await Fixture.server()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let persistent = Fixture.transport(server) { $0.cookies = .persistent(file: scratch.file("none.txt")) }
        #expect(try #require(persistent.cookies).cookies().isEmpty)
        let inMemory = Fixture.transport(server)
        let error = #expect(throws: RequestError.self) { try #require(inMemory.cookies).save() }
        #expect(error?.code == .fileIO)
        let unwritable = #expect(throws: RequestError.self) {
            try #require(inMemory.cookies).save(to: scratch.file("no/such/dir/cookies.txt"))
        }
        #expect(unwritable?.code == .fileIO)
    }

    @Test func theCurlToolAndTheJarReadEachOthersFiles() async throws {
        let server = try await Fixture.server()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let curlWritten = scratch.file("from-curl.txt"), jarWritten = scratch.file("from-jar.txt")
        let setURL = server.httpURL.absoluteString + "response-headers?Set-Cookie=tool%3D1%3B%20HttpOnly"
        let (status, _) = try await runCurlCommand("curl -c '\(curlWritten.path)' '\(setURL)'")
        #expect(status == 0)

        let transport = Fixture.transport(server)
        let jar = try #require(transport.cookies)
        try jar.load(from: curlWritten)
        #expect(try jar.cookies() == [Cookie(name: "tool", value: "1", domain: "127.0.0.1", isHTTPOnly: true)])
        #expect(try await CookieTests.receivedCookies(.async, through: transport) == ["tool=1"])

        try jar.add(Cookie(name: "fromJar", value: "2", domain: "127.0.0.1"))
        try jar.save(to: jarWritten)
        let (_, output) = try await runCurlCommand("curl -b '\(jarWritten.path)' '\(server.httpURL.absoluteString)echo'")
        let echo = try JSONDecoder().decode(EchoReply.self, from: output)
        let sent = echo.header("Cookie").flatMap { $0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(sent.sorted() == ["fromJar=2", "tool=1"])
    }
}
