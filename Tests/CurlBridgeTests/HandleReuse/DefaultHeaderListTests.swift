import CCurl
@testable import CurlBridge
import Foundation
import HTTPTypes
import CurlBridgeTestServer
import Testing

/// A transport builds the curl lists of its default header lines once (`CurlDefaultHeaderLists`,
/// issue 37) and hands them to every transfer whose lines are exactly those. Who may read them:
/// the transfers of that transport that send its defaults unchanged. These tests try to cross
/// that line as a caller with other credentials would: a request with its own `Authorization`, a
/// request for which the defaults are dropped, another transport with other defaults, on handles
/// reused or fresh — and a default `Proxy-Authorization`, which the lists must keep for the proxy.
@Suite struct DefaultHeaderListTests {
    /// What every request of the transports below sends by default.
    static let alice = "Bearer alice-default-token"

    static func transport(_ server: TestServer, token: String = alice, reusesHandles: Bool) -> Transport {
        Fixture.transport(server) {
            $0.defaultHeaders[.authorization] = token
            $0.reusesEasyHandles = reusesHandles
        }
    }

    @Test("A request's own credential replaces the shared defaults, and the next plain request sends them again",
          arguments: ClientStyle.allCases, [false, true])
    func aRequestsOwnCredentialIsNeverMixedWithTheDefaults(style: ClientStyle, reusesHandles: Bool) async throws {
        let server = try await Fixture.server()
        let transport = Self.transport(server, reusesHandles: reusesHandles)
        func authorization(_ request: Request) async throws -> [String] {
            try await style.send(request, through: transport).get().echo().header("Authorization")
        }
        #expect(try await authorization(.get("echo")) == [Self.alice])
        #expect(try await authorization(.get("echo").header("Authorization", "Bearer mallory")) == ["Bearer mallory"])
        #expect(try await authorization(.get("echo").credential(.bearer("carol"))) == ["Bearer carol"])
        #expect(try await authorization(.get("echo")) == [Self.alice])
        var withoutDefaults = Request.get("echo")
        withoutDefaults.omitsDefaultHeaders = true
        #expect(try await authorization(withoutDefaults).isEmpty)
        #expect(try await authorization(.get("echo")) == [Self.alice])
    }

    @Test("Many requests in flight on one transport, some with credentials of their own, each sends only its own",
          arguments: ClientStyle.allCases)
    func requestsInFlightTogetherEachSendOnlyTheirOwnCredential(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Self.transport(server, reusesHandles: true)
        try await withThrowingTaskGroup(of: (String?, [String]).self) { group in
            for index in 0..<48 {
                group.addTask {
                    var request = Request.get("echo")
                    var expected: String? = Self.alice
                    switch index % 4 {
                    case 1:
                        expected = "Bearer mallory-\(index)"
                        request = request.header("Authorization", expected!)
                    case 2:
                        expected = "Bearer carol-\(index)"
                        request = request.credential(.bearer("carol-\(index)"))
                    case 3:
                        expected = nil
                        request.omitsDefaultHeaders = true
                    default:
                        break
                    }
                    return (expected, try await style.send(request, through: transport).get().echo().header("Authorization"))
                }
            }
            for try await (expected, received) in group {
                #expect(received == (expected.map { [$0] } ?? []))
            }
        }
    }

    @Test("A default Host header keeps the handle from being reused, through the shared lists too", arguments: ClientStyle.allCases)
    func aDefaultHostHeaderStillRetiresTheHandle(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) {
            $0.defaultHeaders[HTTPField.Name("Host")!] = "other.example"
            $0.reusesEasyHandles = true
        }
        let a = try await style.send(.get("echo"), through: transport).get().echo()
        #expect(a.header("Host") == ["other.example"])
        var plain = Request.get("echo")
        plain.omitsDefaultHeaders = true
        let b = try await style.send(plain, through: transport).get().echo()
        #expect(transport.reusedEasyHandleCount == 0, "B got the handle that sent A's Host")
        #expect(b.header("Host") != ["other.example"])
    }

    @Test("Two transports' default credentials never cross, with their requests interleaved", arguments: ClientStyle.allCases)
    func twoTransportsDefaultsNeverCross(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transports = [
            ("Bearer alice", Self.transport(server, token: "Bearer alice", reusesHandles: true)),
            ("Bearer bob", Self.transport(server, token: "Bearer bob", reusesHandles: false)),
        ]
        try await withThrowingTaskGroup(of: (String, [String]).self) { group in
            for round in 0..<16 {
                let (token, transport) = transports[round % 2]
                group.addTask {
                    (token, try await style.send(.get("echo"), through: transport).get().echo().header("Authorization"))
                }
            }
            for try await (token, received) in group {
                #expect(received == [token])
            }
        }
    }

    @Test("A default Proxy-Authorization goes to the proxy only, never to an origin", arguments: ClientStyle.allCases)
    func aDefaultProxyAuthorizationGoesOnlyToTheProxy(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start()
        let direct = Fixture.transport(server) { $0.defaultHeaders[.proxyAuthorization] = "Bearer proxy-canary" }
        let directEcho = try await style.send(.get("echo"), through: direct).get().echo()
        #expect(directEcho.header("Proxy-Authorization").isEmpty)

        let proxied = Fixture.transport(server) {
            $0.defaultHeaders[.proxyAuthorization] = "Bearer proxy-canary"
            $0.proxy = .through(.http(host: "127.0.0.1", port: proxy.httpPort))
        }
        let tunnelledEcho = try await style.send(.get(server.httpsURL.absoluteString + "echo"), through: proxied).get().echo()
        #expect(tunnelledEcho.header("Proxy-Authorization").isEmpty)
        #expect(proxy.records.last?.kind == .connect)
        #expect(proxy.records.last?.header("Proxy-Authorization") == ["Bearer proxy-canary"])

        _ = try await style.send(.get("echo"), through: proxied).get()
        #expect(proxy.records.last?.kind == .forward)
        #expect(proxy.records.last?.header("Proxy-Authorization") == ["Bearer proxy-canary"])
        try await proxy.shutdown()
    }

    @Test func aPlainRequestsPreparedLinesAreTheDefaultsArrayAndMatchTheLists() throws {
        var configuration = Configuration()
        configuration.defaultHeaders[.authorization] = Self.alice
        let defaults = RequestDefaults(configuration)
        let lists = try CurlDefaultHeaderLists(defaults.lines)
        func lines(_ request: Request) throws -> [String] {
            try request.prepared(with: defaults).get().headerLines
        }
        let plain = try lines(.get("http://127.0.0.1/x"))
        #expect(lists.matches(plain))
        #expect(plain.withUnsafeBufferPointer { $0.baseAddress } == defaults.lines.withUnsafeBufferPointer { $0.baseAddress },
                "a plain request's lines are the defaults' own array: matching them is one comparison")
        #expect(!lists.matches(try lines(Request.get("http://127.0.0.1/x").header("X-A", "1"))))
        #expect(!lists.matches(try lines(Request.get("http://127.0.0.1/x").credential(.bearer("carol")))))
        #expect(!lists.matches(try lines(Request.post("http://127.0.0.1/x").body("a"))))
        let challenged = Request.get("http://127.0.0.1/x").credential(.challenged(username: "u", password: "p", schemes: .digest))
        #expect(!lists.matches(try lines(challenged)), "a credential takes the default Authorization out")

        let withoutAuthorization = RequestDefaults(Configuration())
        let sharedWithout = try CurlDefaultHeaderLists(withoutAuthorization.lines)
        #expect(sharedWithout.matches(try challenged.prepared(with: withoutAuthorization).get().headerLines),
                "with no default Authorization, a challenged credential leaves the lines equal: curl answers it from other options")
    }

    @Test func theListsHoldTheLinesSplitBetweenServerAndProxy() throws {
        let lines = ["User-Agent: test", "Proxy-Authorization: Basic YTpi", "X-Empty;"]
        let lists = try CurlDefaultHeaderLists(lines)
        #expect(Self.strings(lists.server) == ["User-Agent: test", "X-Empty;"])
        #expect(Self.strings(lists.proxy) == ["Proxy-Authorization: Basic YTpi"])
        #expect(lists.matches(lines))
        #expect(lists.matches(lines.map { String(decoding: Array($0.utf8), as: UTF8.self) }), "equal lines in another array match")
        #expect(!lists.matches(lines.dropLast() + ["X-Empty: no"]))
        #expect(!lists.matches(lines + ["Authorization: Bearer x"]))
        #expect(!lists.matches([]))
        #expect(!lists.setsHost)
        let settingHost = try CurlDefaultHeaderLists(["Host: other.example"])
        #expect(settingHost.setsHost)

        let none = try CurlDefaultHeaderLists([])
        #expect(none.server == nil && none.proxy == nil && none.matches([]))
    }

    /// The strings of a curl list, in order.
    static func strings(_ list: UnsafeMutablePointer<curl_slist>?) -> [String] {
        var strings: [String] = []
        var node = list
        while let current = node {
            strings.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        return strings
    }
}
