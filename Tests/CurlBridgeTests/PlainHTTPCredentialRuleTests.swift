@testable import CurlBridge
import Testing

/// The plain-http credential decision, without I/O.
@Suite struct PlainHTTPCredentialRuleTests {
    @Test(arguments: [
        ("localhost", true), ("LOCALHOST", true), ("localhost.", false), ("127.0.0.1.", false), ("[::1].", false), ("127.0.0.1", true), ("127.255.0.9", true),
        ("[::1]", true), ("::1", true), ("[0:0:0:0:0:0:0:1]", true),
        ("128.0.0.1", false), ("127.0.0", false), ("127.0.0.256", false), ("127.0.0.1.example.com", false),
        ("localhost.example.com", false), ("mylocalhost", false), ("[::2]", false), ("[::ffff:127.0.0.1]", false),
        ("10.0.0.1", false), ("api.test", false), ("", false), ("127..0.1", false),
    ])
    func loopbackIsLocalhostAnd127Slash8AndColonColon1(host: String, isLoopback: Bool) {
        #expect(PlainHTTPCredentialRule.isLoopback(host) == isLoopback)
    }

    @Test func theLoopbackIsExemptOnlyWhenReachedDirectly() {
        let direct = PlainHTTPCredentialRule(configurationAllows: false, isProxied: false, usesUnixSocket: false)
        #expect(direct.permits("http://127.0.0.1:8080/x", requestAllows: false))
        #expect(direct.permits("http://user:pw@localhost/x", requestAllows: false))
        #expect(direct.permits("http://[::1]:80/", requestAllows: false))
        #expect(!direct.permits("http://api.example.com/x", requestAllows: false))
        #expect(!direct.permits("http://127.0.0.1.nip.io/x", requestAllows: false))

        let proxied = PlainHTTPCredentialRule(configurationAllows: false, isProxied: true, usesUnixSocket: false)
        #expect(!proxied.permits("http://127.0.0.1/x", requestAllows: false))
        let unixSocket = PlainHTTPCredentialRule(configurationAllows: false, isProxied: false, usesUnixSocket: true)
        #expect(!unixSocket.permits("http://localhost/x", requestAllows: false))
    }

    @Test func theRequestOrTheConfigurationAllowsAnyHost() {
        let strict = PlainHTTPCredentialRule(configurationAllows: false, isProxied: true, usesUnixSocket: false)
        #expect(strict.permits("http://api.example.com/x", requestAllows: true))
        let lenient = PlainHTTPCredentialRule(configurationAllows: true, isProxied: true, usesUnixSocket: false)
        #expect(lenient.permits("http://api.example.com/x", requestAllows: false))
    }
}
