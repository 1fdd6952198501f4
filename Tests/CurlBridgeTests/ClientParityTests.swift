import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Testing

/// The same request gives the same `Response` or `RequestError` in all three styles.
@Suite(.hangGuard) struct ClientParityTests {
    /// A response without what legitimately differs between two sends: timings, ports, dates, and
    /// the connection number the echo route reports (and so the echo's length).
    struct Comparable: Equatable {
        let status: HTTPResponse.Status
        let headers: [HTTPField]
        let echo: EchoReply?
        let body: Data?
        let url: String
        let httpVersion: HTTPVersion

        init(_ response: Response) {
            status = response.status
            url = response.url
            httpVersion = response.httpVersion
            let received = try? response.echo()
            headers = response.headerFields.filter { $0.name != .date && (received == nil || $0.name != .contentLength) }
            if var echo = received {
                echo.connectionID = 0
                self.echo = echo
                body = nil
            } else {
                echo = nil
                body = response.body
            }
        }
    }

    static let requests: [(String, Request)] = [
        ("get", .get("echo").query("a", "1").header("X-A", "b")),
        ("post json", .post("echo").json(["k": [1, 2]])),
        ("404", .get("status/404")),
        ("gzip", .get("gzip")),
        ("bytes", .get("bytes/100000")),
    ]

    @Test(arguments: requests.map(\.0))
    func successfulResponsesAreIdentical(name: String) async throws {
        let request = try #require(Self.requests.first { $0.0 == name }?.1)
        let transport = Fixture.transport(try await Fixture.server())
        var seen: [Comparable] = []
        for style in ClientStyle.allCases {
            seen.append(Comparable(try await style.send(request, through: transport).get()))
        }
        #expect(seen[0] == seen[1])
        #expect(seen[1] == seen[2])
    }

    static let failing: [(String, Request)] = [
        ("invalid URL", .get("http://[::1")),
        ("relative without base", .get("echo")),
        ("unsupported scheme", .get("ftp://127.0.0.1/")),
        ("CR/LF header", .get("http://127.0.0.1:9/").header("X-Inject", "a\r\nEvil: 1")),
        ("invalid header name", .get("http://127.0.0.1:9/").header("Bad Name", "v")),
        ("invalid method", Request(method: "GE T", url: "http://127.0.0.1:9/")),
        ("unencodable body", .post("http://127.0.0.1:9/").json(["x": Double.nan])),
    ]

    @Test(arguments: failing.map(\.0))
    func refusedRequestsGiveIdenticalErrors(name: String) async throws {
        let request = try #require(Self.failing.first { $0.0 == name }?.1)
        let transport = Transport()
        var errors: [RequestError] = []
        for style in ClientStyle.allCases {
            errors.append(try #require(await style.send(request, through: transport).failure))
        }
        #expect(errors[0] == errors[1])
        #expect(errors[1] == errors[2])
    }

    @Test func transportFailuresGiveIdenticalErrors() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        var errors: [RequestError] = []
        for style in ClientStyle.allCases {
            errors.append(try #require(await style.send(.get("close-mid-body"), through: transport).failure))
        }
        #expect(errors.allSatisfy { $0.code == .responseTruncated })
        #expect(errors[0] == errors[1])
        #expect(errors[1] == errors[2])
    }
}

/// Requests refused for bad input fail before anything reaches the network.
@Suite(.hangGuard) struct BadInputTests {
    static let cases: [(String, RequestError.Code, @Sendable (String) -> Request)] = [
        ("CR/LF in a header value", .invalidHeader, { Request.get($0).header("X-Inject", "a\r\nEvil: 1") }),
        ("LF in a header value", .invalidHeader, { Request.get($0).header("X-Inject", "a\nb") }),
        ("NUL in a header value", .invalidHeader, { Request.get($0).header("X-Inject", "a\u{0}b") }),
        ("space in a header name", .invalidHeader, { Request.get($0).header("Bad Name", "v") }),
        ("CR/LF in the method", .invalidMethod, { Request(method: "GET\r\nX: y", url: $0) }),
        ("unencodable JSON", .encodingFailed, { Request.post($0).json(["x": Double.nan]) }),
        ("CR/LF in a body content type", .invalidHeader, { Request.post($0).body(Data("x".utf8), contentType: "text/plain\r\nX-Evil: 1") }),
    ]

    @Test(arguments: ClientStyle.allCases, cases.map(\.0))
    func badInputIsRefusedWithNothingSent(style: ClientStyle, name: String) async throws {
        let (_, code, make) = try #require(Self.cases.first { $0.0 == name })
        let listener = try SilentListener()
        let error = await style.send(make(listener.url), through: Transport()).failure
        #expect(error?.code == code)
        #expect(error?.url == listener.url)
        #expect(listener.connectionAttempts() == 0)
    }
}
