import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// `curlDescription` is a command the real curl CLI can run to send the very same request.
@Suite(.hangGuard) struct CurlDescriptionTests {
    static let requests: [(String, Request)] = [
        ("get with query and headers", Request.get("echo/a").query("q", "a b&c").header("X-Trace", "it's 1").header("X-Empty", "")),
        ("json post", Request.post("echo").json(["name": "Ada", "quote": "don't"])),
        ("binary put with NULs", Request.put("echo").body(Data([0, 1, 2, 0x27, 0x25, 0xFF, 0, 10]))),
        ("body starting with @", Request.post("echo").body("@/etc/passwd")),
        ("custom method with body", Request(method: "PROPFIND", url: "echo").body("<propfind/>", contentType: "application/xml")),
        ("empty post", Request.post("echo")),
        ("delete", Request.delete("echo/1")),
        ("brackets in the URL", Request.get("echo?list[0]=a&list[1]=b")),
    ]

    @Test(arguments: requests.map(\.0))
    func theCurlCLIRunningTheDescriptionSendsWhatCurlBridgeSends(name: String) async throws {
        let request = try #require(Self.requests.first { $0.0 == name }?.1)
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        var sent = try await ClientStyle.async.send(request, through: transport).get().echo()
        let command = request.curlDescription(for: transport.configuration)
        let (status, output) = try await runCurlCommand(command)
        #expect(status == 0)
        var replayed = try JSONDecoder().decode(EchoReply.self, from: output)
        sent.connectionID = 0
        replayed.connectionID = 0
        #expect(replayed == sent, "\(command)")
    }

    @Test func secretsAreRedactedUnlessRevealed() {
        let request = Request.get("https://example.com/")
            .header("Authorization", "Bearer s3cret")
            .header("Cookie", "session=abc")
            .header("X-Api-Key", "k3y", sensitive: true)
            .header("X-Visible", "shown")
        let redacted = request.curlDescription()
        #expect(!redacted.contains("s3cret") && !redacted.contains("session=abc") && !redacted.contains("k3y"))
        #expect(redacted.contains("-H 'Authorization: <redacted>'"))
        #expect(redacted.contains("-H 'X-Api-Key: <redacted>'"))
        #expect(redacted.contains("-H 'X-Visible: shown'"))
        let revealed = request.curlDescription(revealingSecrets: true)
        #expect(revealed.contains("-H 'Authorization: Bearer s3cret'") && revealed.contains("-H 'X-Api-Key: k3y'"))
    }

    @Test func timeoutsVersionAndVerificationAreDescribed() {
        var configuration = Configuration(httpVersion: .http1_1)
        configuration.tls.disablesCertificateVerification = true
        configuration.tls.minimumVersion = .tls1_3
        let description = Request.get("https://example.com/").timeout(connect: .milliseconds(1500), total: .seconds(9))
            .curlDescription(for: configuration)
        #expect(description.contains("--connect-timeout 1.500"))
        #expect(description.contains("--max-time 9"))
        #expect(description.contains("--speed-limit 1 --speed-time 60"))
        #expect(description.contains("--http1.1") && description.contains("--insecure") && description.contains("--compressed"))
        #expect(description.contains("--tlsv1.3"))
    }

    @Test func unsendableRequestSaysWhy() {
        #expect(Request.get("ftp://example.com/").curlDescription().hasPrefix("# not sendable: unsupportedScheme"))
    }
}
