import CurlBridge
import CurlBridgeTesting
import Foundation
import HTTPTypes
import Testing

@Suite("StubResponder: canned responses and a request record, in all three styles")
struct StubResponderTests {
    @Test("A canned JSON response decodes the same in every style; each request is recorded")
    func cannedJSONInEveryStyle() async throws {
        let stubs = StubResponder()
        stubs.on(.get, "/v1/users/42", respond: try .json(User(id: 42, name: "Ada")))
        let transport = stubbedTransport(stubs)

        let viaAsync = try await AsyncClient(transport: transport).send(.get("users/42")).decode(User.self)
        let viaCallback = try await ClientStyle.callback.send(.get("users/42"), through: transport).get().decode(User.self)
        let blocking = BlockingClient(transport: transport)
        let viaBlocking = try await onWorkerThread {
            Result { () throws(RequestError) in try blocking.send(.get("users/42")).decode(User.self) }
        }.get()

        #expect([viaAsync, viaCallback, viaBlocking] == Array(repeating: User(id: 42, name: "Ada"), count: 3))
        #expect(stubs.requests.map(\.url) == Array(repeating: "https://api.example.test/v1/users/42", count: 3))
        #expect(stubs.requests.allSatisfy { $0.method == .get })
    }

    @Test("The recorded request carries the resolved URL, query, default and own headers, and the body")
    func recordsWhatWouldBeSent() async throws {
        let stubs = StubResponder()
        stubs.on(.post, "/v1/users", respond: .text("created", status: .created))
        let transport = stubbedTransport(stubs) { $0.defaultHeaders = [.authorization: "Bearer t0k3n"] }

        let response = try await AsyncClient(transport: transport)
            .send(.post("users").query("dry-run", "yes please").header("X-Trace", "abc").json(User(id: 7, name: "Grace")))

        #expect(response.status == .created)
        #expect(String(decoding: response.body, as: UTF8.self) == "created")
        #expect(response.headerFields[.contentLength] == "7")
        let received = try #require(stubs.requests(to: "/v1/users").first)
        #expect(received.queryValues("dry-run") == ["yes please"])
        #expect(received.headerFields[.authorization] == "Bearer t0k3n")
        #expect(received.headerFields[HTTPField.Name("X-Trace")!] == "abc")
        #expect(received.headerFields[.contentType] == "application/json")
        #expect(try JSONDecoder().decode(User.self, from: received.body) == User(id: 7, name: "Grace"))
    }

    @Test("A request no route matches gets a 404 naming it, which validation turns into an error")
    func unmatchedRequestsAreNamed() async throws {
        let stubs = StubResponder()
        let transport = stubbedTransport(stubs)
        let response = try await AsyncClient(transport: transport).send(.delete("nothing/here"))
        #expect(response.status == .notFound)
        #expect(String(decoding: response.body, as: UTF8.self) == "no stub for DELETE https://api.example.test/v1/nothing/here")
        #expect(throws: RequestError.self) { try response.validate() }
        #expect(stubs.requests.count == 1)
    }

    @Test("The first matching route answers, in registration order; a predicate route sees the whole request")
    func routesMatchInOrder() async throws {
        let stubs = StubResponder()
        stubs.on({ $0.headerFields[HTTPField.Name("X-Beta")!] != nil }, answer: { _ in .text("beta") })
        stubs.on(nil, "/v1/feed", respond: .text("stable"))
        stubs.on(.get, "/v1/feed", respond: .text("never: an earlier route matches"))
        let client = AsyncClient(transport: stubbedTransport(stubs))

        let beta = try await client.send(.get("feed").header("X-Beta", "1"))
        let stable = try await client.send(.get("feed"))
        #expect(String(decoding: beta.body, as: UTF8.self) == "beta")
        #expect(String(decoding: stable.body, as: UTF8.self) == "stable")
        stubs.clearRequests()
        #expect(stubs.requests.isEmpty)
    }

    @Test("A redirect is followed through the stub: both hops recorded, the hop reported")
    func redirectsAreFollowed() async throws {
        let stubs = StubResponder()
        stubs.on(.get, "/v1/old", respond: StubResponse(status: .found, headerFields: [.location: "/v1/new"]))
        stubs.on(.get, "/v1/new", respond: .text("moved here"))
        let response = try await AsyncClient(transport: stubbedTransport(stubs)).send(.get("old"))

        #expect(String(decoding: response.body, as: UTF8.self) == "moved here")
        #expect(response.url == "https://api.example.test/v1/new")
        #expect(response.redirects.count == 1)
        #expect(stubs.requests.map(\.path) == ["/v1/old", "/v1/new"])
    }

    @Test("A retry policy re-sends after stubbed failures, and every attempt is recorded", arguments: ClientStyle.allCases)
    func retriesRunAgainstStubbedFailures(style: ClientStyle) async throws {
        let stubs = StubResponder()
        stubs.on(.get, "/v1/flaky", answers: [
            .failure(RequestError(.connectionLost, "reset by the stub")),
            StubResponse(status: .serviceUnavailable),
            .text("third time"),
        ])
        let transport = stubbedTransport(stubs)
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(1))
        let response = try await style.send(.get("flaky").retries(policy), through: transport).get()

        #expect(String(decoding: response.body, as: UTF8.self) == "third time")
        #expect(response.attempts.count == 3)
        #expect(stubs.requests.count == 3)
    }

    @Test("A failure stub surfaces as that RequestError, attributed to the request")
    func failuresSurfaceAsRequestErrors() async throws {
        let stubs = StubResponder()
        stubs.on(.get, "/v1/down", respond: .failure(RequestError(.hostNotFound, "no such host in the stub")))
        let result = await ClientStyle.callback.send(.get("down"), through: stubbedTransport(stubs))
        let error = try #require(result.failure)
        #expect(error.code == .hostNotFound)
        #expect(error.message == "no such host in the stub")
        #expect(error.method == .get)
        #expect(error.url == "https://api.example.test/v1/down")
    }
}
