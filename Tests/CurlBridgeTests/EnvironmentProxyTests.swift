@testable import CurlBridge
import Foundation
import Testing

/// Environment proxies are used only when the configuration asks for them.
@Suite(.hangGuard) struct EnvironmentProxyTests {
    /// In a child process with `http_proxy`, `HTTPS_PROXY`, `all_proxy` and `NO_PROXY=localhost`
    /// set (this process's environment is left alone): the default configuration ignores them
    /// (libcurl alone would not), `fromEnvironment()` follows them, and an explicit proxy is not
    /// bypassed by the environment's `NO_PROXY`.
    @Test func environmentProxiesApplyOnlyWhenAskedFor() async throws {
        let lines = try await ProbeProcessTests().runProbe("env-proxy")
        #expect(lines.contains("env-proxy default http=direct:200 https=direct:200"), "\(lines)")
        #expect(lines.contains("env-proxy fromEnvironment http=proxied:200 https=proxied:200 no_proxy=direct:200"), "\(lines)")
        #expect(lines.contains("env-proxy explicit no_proxy=proxied:200"), "\(lines)")
    }

    @Test func lowercaseVariablesWinAndAllProxyIsTheFallback() throws {
        let configuration = ProxyConfiguration.fromEnvironment([
            "http_proxy": "http://lower:3128", "HTTP_PROXY": "http://upper:3128",
            "ALL_PROXY": "socks5h://fallback", "no_proxy": " localhost, .internal ,,10.0.0.0/8",
        ])
        #expect(configuration.httpProxy == .http(host: "lower", port: 3128))
        #expect(configuration.httpsProxy == .socks5h(host: "fallback", port: 1080))
        #expect(configuration.bypassedHosts == ["localhost", ".internal", "10.0.0.0/8"])
    }

    @Test func uppercaseHTTPProxyIsIgnoredInACGIProgram() {
        let environment = ["HTTP_PROXY": "http://attacker:80", "REQUEST_METHOD": "GET", "HTTPS_PROXY": "proxy:8443"]
        let configuration = ProxyConfiguration.fromEnvironment(environment)
        #expect(configuration.httpProxy == nil)
        #expect(configuration.httpsProxy == .http(host: "proxy", port: 8443))
        #expect(ProxyConfiguration.fromEnvironment(["HTTP_PROXY": "http://proxy:80"]).httpProxy == .http(host: "proxy", port: 80))
    }

    @Test func emptyOrUnusableValuesAreIgnored() {
        let configuration = ProxyConfiguration.fromEnvironment(["http_proxy": "", "https_proxy": "socks4://old:1080"])
        #expect(configuration == .direct)
        #expect(ProxyConfiguration.fromEnvironment([:]) == .direct)
    }

    @Test func proxyURLsCarryCredentialsAndDefaultPorts() throws {
        let server = try #require(ProxyServer(url: "https://me%40corp:p%3Ass@[::1]"))
        #expect(server.kind == .https)
        #expect(server.host == "::1")
        #expect(server.port == 443)
        #expect(server.credentials == .init(user: "me@corp", password: "p:ss"))
        #expect(server.description == "https://me@corp@[::1]:443")
        #expect(!server.description.contains("p:ss"))
        #expect(ProxyServer(url: "proxy.corp")?.curlURL == "http://proxy.corp:1080")
        #expect(ProxyServer(url: "socks5://10.1.2.3:9050")?.curlURL == "socks5://10.1.2.3:9050")
        #expect(ProxyServer(url: "ftp://proxy") == nil)
        #expect(ProxyServer(url: "http://") == nil)
    }
}
