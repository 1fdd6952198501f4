@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Unix domain sockets, connection lifetime and idle expiry, and local address binding, in every style.
@Suite(.hangGuard) struct ConnectionTests {
    @Test(arguments: ClientStyle.allCases)
    func unixSocketCarriesGetAndPost(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Transport(configuration: Configuration(
            baseURL: URL(string: "http://docker.local/echo/v1.43/"), unixSocketPath: server.unixSocketPath))
        let get = try await style.send(.get("containers/json?all=1"), through: transport).get().echo()
        #expect(get.path == "/echo/v1.43/containers/json")
        #expect(get.header("host") == ["docker.local"])
        #expect(get.clientAddress == nil)  // no IP peer: it came over the Unix socket
        let payload = TestServer.patternBody(0..<300_000)
        let post = try await style.send(.post("echo").body(payload), through: transport).get().echo()
        #expect(post.bodyData == payload)
        #expect(post.connectionID == get.connectionID)  // kept alive like a TCP connection
    }

    @Test(arguments: ClientStyle.allCases)
    func connectionIsReplacedOnceOlderThanItsMaximumLifetime(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let limited = Fixture.transport(server) { $0.connectionLimits.maximumLifetime = .seconds(1) }
        let first = try await style.send(.get("echo"), through: limited).get().echo().connectionID
        // Back to back, so the connection is never idle: only its age can retire it.
        var sent = 1
        var latest = first
        while latest == first, sent < 100_000 {
            latest = try await style.send(.get("echo"), through: limited).get().echo().connectionID
            sent += 1
        }
        #expect(latest != first)
        // The same requests without the limit all share one connection.
        let unlimited = Fixture.transport(server)
        var ids: Set<Int> = []
        for _ in 0..<sent {
            ids.insert(try await style.send(.get("echo"), through: unlimited).get().echo().connectionID)
        }
        #expect(ids.count == 1)
    }

    @Test(arguments: ClientStyle.allCases)
    func idleConnectionIsNotReusedAfterItsMaximumIdleTime(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let limited = Fixture.transport(server) { $0.connectionLimits.maximumIdleTime = .seconds(1) }
        let unlimited = Fixture.transport(server)
        let limitedFirst = try await style.send(.get("echo"), through: limited).get().echo().connectionID
        let unlimitedFirst = try await style.send(.get("echo"), through: unlimited).get().echo().connectionID
        // curl counts idle time in whole seconds and retires a connection idle for more than the
        // limit: two seconds and a bit are needed. The waiting is the behaviour under test.
        let idleUntil = ContinuousClock.now + .milliseconds(2_200)
        try await waitFor("the connections to be idle for 2.2 s") { ContinuousClock.now >= idleUntil }
        #expect(try await style.send(.get("echo"), through: limited).get().echo().connectionID != limitedFirst)
        #expect(try await style.send(.get("echo"), through: unlimited).get().echo().connectionID == unlimitedFirst)
    }

    @Test(arguments: ClientStyle.allCases)
    func localBindingChoosesTheSourceAddressAndPort(style: ClientStyle) async throws {
        let base = 42_000 + 300 * ClientStyle.allCases.firstIndex(of: style)!
        let ports = base...(base + 299)
        let transport = Fixture.transport(try await Fixture.server()) {
            $0.localBinding = .address("127.0.0.2", ports: ports)
        }
        let response = try await style.send(.get("echo"), through: transport).get()
        #expect(try response.echo().clientAddress == "127.0.0.2")
        #expect(ports.contains(response.metrics.localPort))
    }

    @Test(arguments: ClientStyle.allCases)
    func unbindableLocalAddressFailsToConnect(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.localBinding = .address("192.0.2.1") }
        #expect(await style.send(.get("echo"), through: transport).failure?.code == .connectFailed)
    }

    @Test func theCurlCLIRunningAUnixSocketDescriptionReachesTheSocket() async throws {
        let server = try await Fixture.server()
        let configuration = Configuration(unixSocketPath: server.unixSocketPath)
        let command = Request.get("http://docker.local/echo").curlDescription(for: configuration)
        #expect(command.contains("--unix-socket '\(server.unixSocketPath)'"))
        let (status, output) = try await runCurlCommand(command)
        #expect(status == 0)
        #expect(try JSONDecoder().decode(EchoReply.self, from: output).header("host") == ["docker.local"])
    }

    @Test func durationsBecomeWholeSecondsForCurl() {
        let options = CurlConnectionOptions(Configuration(
            connectionLimits: ConnectionLimits(maximumLifetime: .milliseconds(1500), maximumIdleTime: .milliseconds(10))))
        #expect(options.maximumLifetimeSeconds == 2)
        #expect(options.maximumIdleSeconds == 1)
    }
}
