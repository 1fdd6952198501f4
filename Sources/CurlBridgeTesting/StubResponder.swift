import CurlBridge
import HTTPTypes
import Synchronization

/// Canned responses for a stubbed `Transport`, and a record of every request it received.
///
/// Register what each request gets — one response, a sequence of them, or a handler — and build
/// any client over `Transport.init(configuration:responder:)`. Requests no route matches get the
/// answer of the `unmatched` handler given to ``init(unmatched:)`` (by default a `404` that names
/// the request).
///
/// ```swift
/// let stubs = StubResponder()
/// stubs.on(.get, "/users/42", respond: try .json(User(id: 42, name: "Ada")))
/// stubs.on(.post, "/users", answers: [.failure(RequestError(.connectionLost, "reset")), .text("created", status: .created)])
/// let client = AsyncClient(transport: Transport(configuration: .init(baseURL: apiURL), responder: stubs))
/// …
/// #expect(stubs.requests.map(\.path) == ["/users/42", "/users", "/users"])
/// ```
///
/// Routes are tried in the order they were registered; the first that matches answers.
public final class StubResponder: Sendable {
    /// Decides whether a route answers a request.
    public typealias Matcher = @Sendable (StubRequest) -> Bool
    /// Answers a request.
    public typealias Handler = @Sendable (StubRequest) async -> StubResponse

    private struct Route {
        let matches: Matcher
        let answer: Handler
    }

    private struct State {
        var routes: [Route] = []
        var requests: [StubRequest] = []
    }

    private let state = Mutex(State())
    private let unmatched: Handler

    /// Creates an empty table.
    ///
    /// - Parameter unmatched: Answers a request no route matches; by default a `404 Not Found`
    ///   whose text names the method and URL, so a missing stub shows in the failing test.
    public init(unmatched: @escaping Handler = StubResponder.notFound) {
        self.unmatched = unmatched
    }

    /// A `404 Not Found` naming the request: the default for requests no route matches.
    @Sendable public static func notFound(_ request: StubRequest) -> StubResponse {
        .text("no stub for \(request.method.rawValue) \(request.url)", status: .notFound)
    }

    /// Every request received so far, in the order they arrived (each attempt of a redirected or
    /// retried request counts).
    public var requests: [StubRequest] {
        state.withLock { $0.requests }
    }

    /// The requests received for `path` (the URL's percent-encoded path, e.g. `"/users/42"`).
    public func requests(to path: String) -> [StubRequest] {
        requests.filter { $0.path == path }
    }

    /// Answers every request that `matches` accepts with `answer`.
    public func on(_ matches: @escaping Matcher, answer: @escaping Handler) {
        state.withLock { $0.routes.append(Route(matches: matches, answer: answer)) }
    }

    /// Answers requests to `path` (and with `method`, unless `nil`) with `answer`.
    ///
    /// - Parameters:
    ///   - method: The method; `nil` for any.
    ///   - path: The URL's percent-encoded path, exactly, e.g. `"/users/42"`.
    ///   - answer: Makes the answer.
    public func on(_ method: HTTPRequest.Method? = nil, _ path: String, answer: @escaping Handler) {
        on({ request in request.path == path && (method == nil || request.method == method) }, answer: answer)
    }

    /// Answers requests to `path` (and with `method`, unless `nil`) with `response`, every time.
    public func on(_ method: HTTPRequest.Method? = nil, _ path: String, respond response: StubResponse) {
        on(method, path) { _ in response }
    }

    /// Answers requests to `path` (and with `method`, unless `nil`) with `responses` in turn, the
    /// last one again once they are used up: for a server that fails a few times, then recovers.
    ///
    /// - Precondition: `responses` is not empty.
    public func on(_ method: HTTPRequest.Method? = nil, _ path: String, answers responses: [StubResponse]) {
        precondition(!responses.isEmpty, "a sequence of answers needs at least one")
        let next = Mutex(0)
        on(method, path) { _ in
            let index = next.withLock { index in
                defer { index += 1 }
                return min(index, responses.count - 1)
            }
            return responses[index]
        }
    }

    /// Forgets the requests received so far; the routes stay.
    public func clearRequests() {
        state.withLock { $0.requests.removeAll() }
    }

    /// Records `request` and answers it from the first matching route.
    public func respond(to request: StubRequest) async -> StubResponse {
        let route = state.withLock { state in
            state.requests.append(request)
            return state.routes.first { $0.matches(request) }
        }
        return await (route?.answer ?? unmatched)(request)
    }
}

extension Transport {
    /// Creates a transport whose requests `responder` answers and records, with no network
    /// connection (see `Transport.init(configuration:stub:)` for what still runs).
    ///
    /// - Parameters:
    ///   - configuration: The configuration, as for a transport on the network.
    ///   - responder: The canned responses.
    public convenience init(configuration: Configuration = Configuration(), responder: StubResponder) {
        self.init(configuration: configuration, stub: { await responder.respond(to: $0) })
    }
}
