@testable import CurlBridge
import CurlBridgeTestServer
import Foundation

/// Plays one cache test as test-engine/client/test.mjs does: its requests in order, through a
/// private cache in memory (emptied before each test) to the origin, checking each response as it
/// arrives and, after the last, what the origin received.
///
/// One transport and one cache serve every test (each test's URLs are its own): 370 transports,
/// made and shut down one after another, would load the machine for every other suite running
/// beside this one.
struct CacheTestRunner: Sendable {
    let server: TestServer
    let origin: CacheTestOrigin
    /// The clock of every test; a test's dates are relative to its `now`.
    private let clock = CacheTestClock()
    private let cache: HTTPCache
    private let transport: Transport

    init(server: TestServer, origin: CacheTestOrigin) throws {
        self.server = server
        self.origin = origin
        let clock = clock
        cache = try HTTPCache(.memory(limit: 16 << 20), clock: { clock.now })
        transport = Transport(configuration: Self.configuration(cache: cache))
    }

    /// Shuts the runner's transport down.
    func shutdown() async {
        await transport.shutdown()
    }

    /// Why `test` is not run against this cache, or `nil` when it is.
    static func reasonNotApplicable(_ test: CacheTest) -> String? {
        if test.cdnOnly { return "CDN only" }
        if test.sharedCacheOnly { return "shared caches only" }
        if test.usesInterimResponses { return "needs interim (1xx) responses" }
        return nil
    }

    /// The verdict of `test` on its own, before its dependencies are looked at.
    func run(_ test: CacheTest) async -> CacheTestVerdict {
        if let reason = Self.reasonNotApplicable(test) { return .notApplicable(reason) }
        cache.removeAll()
        let session = CacheTestSession(uuid: UUID().uuidString.lowercased(), requests: test.requests, clock: clock)
        origin.begin(session)
        let verdict: CacheTestVerdict
        var responses: [ReceivedResponse] = []
        do throws(CacheTestCheckFailure) {
            try await play(test, session: session, through: AsyncClient(transport: transport), responses: &responses)
            verdict = .passed
        } catch {
            verdict = error.verdict(cacheStatuses: responses.map(\.cacheStatus))
        }
        origin.end(session)
        return verdict
    }

    /// Like the suite's client, Node's `fetch`: no retries, no cookie jar, content codings left
    /// as they are (the suite sends made-up ones), 10-second requests (client/config.mjs).
    private static func configuration(cache: HTTPCache) -> Configuration {
        var configuration = Configuration(
            timeouts: Timeouts(connect: .seconds(10), total: .seconds(10)),
            decodesContentEncoding: false,
            cookies: .disabled,
            retryPolicy: .none)
        configuration.cache = cache
        return configuration
    }

    /// Sends the test's requests in order, checking each response, then checks the origin;
    /// `responses` collects the responses as they come.
    private func play(
        _ test: CacheTest, session: CacheTestSession, through client: AsyncClient, responses: inout [ReceivedResponse]
    ) async throws(CacheTestCheckFailure) {
        for (index, request) in test.requests.enumerated() {
            let number = index + 1
            let response = try await send(
                makeRequest(request, number: number, of: test, uuid: session.uuid, previousResponse: responses.last),
                number: number, disconnecting: request.disconnect, through: client)
            responses.append(response)
            try CacheTestChecks.checkResponse(response, to: request, number: number, uuid: session.uuid)
            if request.pauseAfter {
                session.clock.advance(by: CacheTestClock.pauseAfterRequest)
            }
        }
        try CacheTestChecks.checkOrigin(session.observations, requests: test.requests, responses: responses)
    }

    /// Sends `request`. A request the origin answers by closing the connection gets the
    /// ``ReceivedResponse/gatewayError`` when the cache has no response to give; any other
    /// failure fails the test, as a rejected `fetch` does.
    private func send(
        _ request: Request, number: Int, disconnecting: Bool, through client: AsyncClient
    ) async throws(CacheTestCheckFailure) -> ReceivedResponse {
        do {
            return ReceivedResponse(try await client.send(request))
        } catch {
            if disconnecting { return .gatewayError }
            throw CacheTestCheckFailure(isSetup: false, message: "Request \(number) failed: \(error.code): \(error.message)")
        }
    }

    /// The request as client/fetching.mjs makes it: the test's method, headers and body, the
    /// test's name, ID and request number as headers, and the Fetch modes mapped onto the client.
    private func makeRequest(
        _ request: CacheTestRequest, number: Int, of test: CacheTest, uuid: String, previousResponse: ReceivedResponse?
    ) -> Request {
        var url = server.httpURL.absoluteString + "test/" + uuid
        if let filename = request.filename { url += "/" + filename }
        if let query = request.queryArgument { url += "?" + query }
        var built = Request(method: request.requestMethod, url: url)
        for header in request.requestHeaders {
            let value =
                request.magicIfModifiedSince && header.name.lowercased() == "if-modified-since"
                ? MagicHeaderValue.resolve(
                    header.name, header.value, serverNow: previousResponse?.serverNow,
                    serverBaseURL: previousResponse?.value(of: "Server-Base-Url"), in: request)
                : header.value.literal
            built = built.header(header.name, value)
        }
        if request.cacheMode == .noCache && !request.requestHeaders.contains(where: { $0.name.lowercased() == "cache-control" }) {
            built = built.header("Cache-Control", "max-age=0")
        }
        built = built.header("Test-Name", test.name).header("Test-ID", test.id).header("Req-Num", String(number))
        if let body = request.requestBody {
            built = built.body(Data(body.utf8), contentType: "text/plain;charset=UTF-8")
        }
        if request.redirectMode == .manual {
            built = built.redirects(.none)
        }
        return built
    }
}
