@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// The redirect rules as values: one response head in, one decision out, no sockets.
@Suite("Redirect decisions")
struct RedirectStepTests {
    private static let origin = "https://api.example.com/v1/start"

    private func head(_ status: Int, location: String?) -> ResponseHead {
        var fields = HTTPFields()
        if let location { fields[.location] = location }
        return ResponseHead(status: .init(code: status), headerFields: fields, httpVersion: .http1_1, url: Self.origin)
    }

    private func decide(
        _ request: Request, status: Int = 302, location: String? = "/next", hops: Int = 0, visited: Set<String> = [],
        policy: RedirectPolicy = .standard, defaults: HTTPFields = [:]
    ) -> RedirectStep {
        RedirectStep.decide(
            head(status, location: location), request: request, url: Self.origin, hopsSoFar: hops, visited: visited,
            policy: policy, defaultHeaders: defaults)
    }

    private func next(_ step: RedirectStep, sourceLocation: SourceLocation = #_sourceLocation) throws -> Request {
        guard case .follow(let next, _) = step else {
            Issue.record("expected follow, got \(step)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return next
    }

    private func failureCode(_ step: RedirectStep) -> RequestError.Code? {
        if case .fail(let error) = step { return error.code }
        return nil
    }

    private func isDelivered(_ step: RedirectStep) -> Bool {
        if case .deliver = step { return true }
        return false
    }

    private var secrets: Request {
        Request.post(Self.origin)
            .header("Authorization", "Bearer a")
            .header("Cookie", "c=1")
            .header("Proxy-Authorization", "Basic p")
            .header("X-Api-Key", "k", sensitive: true)
            .header("X-Trace", "t")
            .header("X-Forward-Me", "f", forwardable: true)
            .header("Accept", "application/json")
            .body("payload")
    }

    private func names(_ request: Request) -> Set<String> {
        Set(request.headerFields.map(\.name.canonicalName))
    }

    @Test("303 turns any method but HEAD into a GET without body or body headers")
    func seeOther() throws {
        let get = try next(decide(Request.put(Self.origin).header("Content-Type", "text/plain").body("x"), status: 303))
        #expect(get.method == .get)
        #expect(get.body == nil)
        #expect(!names(get).contains("content-type"))
        let head = try next(decide(Request.head(Self.origin), status: 303))
        #expect(head.method == .head)
    }

    @Test("301 and 302 turn only a POST into a GET", arguments: [301, 302])
    func movedOrFound(status: Int) throws {
        let post = try next(decide(Request.post(Self.origin).body("x"), status: status))
        #expect(post.method == .get && post.body == nil)
        let put = try next(decide(Request.put(Self.origin).body("x"), status: status))
        #expect(put.method == .put && put.body != nil)
    }

    @Test("307 and 308 keep method and body, and refuse a one-shot stream", arguments: [307, 308])
    func temporaryOrPermanent(status: Int) throws {
        let post = try next(decide(Request.post(Self.origin).body("x"), status: status))
        #expect(post.method == .post && post.body != nil)
        let streamed = Request.post(Self.origin).body(streaming: AsyncStream<Data> { $0.finish() }, length: nil)
        #expect(failureCode(decide(streamed, status: status)) == .bodyNotRewindable)
    }

    @Test("A same-origin hop keeps every header")
    func sameOrigin() throws {
        let kept = try next(decide(secrets, status: 307, location: "/v1/other"))
        #expect(names(kept) == names(secrets))
        #expect(kept.url == "https://api.example.com/v1/other")
        #expect(!kept.omitsDefaultHeaders)
    }

    @Test("A cross-origin hop keeps only safe and forwardable headers, defaults included", arguments: [
        "https://other.example.com/x", "https://api.example.com:8443/x", "http://api.example.com:443/x",
    ])
    func crossOriginSafeList(location: String) throws {
        let policy = RedirectPolicy(allowsDowngradeToPlainHTTP: true)
        let defaults: HTTPFields = [.userAgent: "UA", .authorization: "Bearer default", HTTPField.Name("X-Default")!: "d"]
        let moved = try next(decide(secrets, status: 307, location: location, policy: policy, defaults: defaults))
        #expect(names(moved) == ["x-forward-me", "accept", "user-agent"])
        #expect(moved.omitsDefaultHeaders)
        let withCredential = try next(decide(secrets.basicAuth(username: "u", password: "p"), status: 307, location: location, policy: policy))
        #expect(withCredential.credential == nil)
        let sameOrigin = try next(decide(secrets.basicAuth(username: "u", password: "p"), status: 307, location: "/v1/x"))
        #expect(sameOrigin.credential != nil)
    }

    @Test("Content-Type crosses origins only with the body")
    func contentTypeFollowsBody() throws {
        let request = secrets.header("Content-Type", "text/plain")
        let kept = try next(decide(request, status: 307, location: "https://other.example.com/"))
        #expect(names(kept).contains("content-type"))
        let dropped = try next(decide(request, status: 303, location: "https://other.example.com/"))
        #expect(!names(dropped).contains("content-type"))
    }

    @Test("allExceptSensitive forwards custom headers but never credentials or sensitive ones")
    func permissiveCrossOrigin() throws {
        let policy = RedirectPolicy(crossOriginHeaders: .allExceptSensitive)
        let moved = try next(decide(secrets, status: 307, location: "https://other.example.com/", policy: policy))
        #expect(names(moved) == ["x-trace", "x-forward-me", "accept"])
    }

    @Test("https to http is refused unless allowed; other schemes always", arguments: [
        ("http://api.example.com/x", false), ("http://api.example.com/x", true),
        ("file:///etc/passwd", true), ("ftp://api.example.com/x", true), ("data:text/plain,hi", true),
    ])
    func schemes(location: String, allowsDowngrade: Bool) {
        let step = decide(.get(Self.origin), location: location, policy: RedirectPolicy(allowsDowngradeToPlainHTTP: allowsDowngrade))
        if location.hasPrefix("http:") && allowsDowngrade {
            #expect(!isDelivered(step) && failureCode(step) == nil)
        } else {
            #expect(failureCode(step) == .insecureRedirect)
        }
    }

    @Test("Relative, protocol-relative and unescaped locations resolve against the URL that redirected")
    func locations() throws {
        #expect(try next(decide(.get(Self.origin), location: "next?a=1")).url == "https://api.example.com/v1/next?a=1")
        #expect(try next(decide(.get(Self.origin), location: "//cdn.example.com/f")).url == "https://cdn.example.com/f")
        #expect(try next(decide(.get(Self.origin), location: "/a b/ü")).url == "https://api.example.com/a%20b/%C3%BC")
        let queried = Request.get(Self.origin).query("q", "1")
        #expect(try next(decide(queried, location: "/plain")).url == "https://api.example.com/plain")
    }

    @Test("Not a followed redirect: no Location, 304, 300, or following turned off")
    func notFollowed() {
        #expect(isDelivered(decide(.get(Self.origin), location: nil)))
        #expect(isDelivered(decide(.get(Self.origin), status: 304)))
        #expect(isDelivered(decide(.get(Self.origin), status: 300)))
        #expect(isDelivered(decide(.get(Self.origin), policy: .none)))
    }

    @Test("The hop limit and loops fail with tooManyRedirects")
    func limits() {
        #expect(failureCode(decide(.get(Self.origin), hops: 10)) == .tooManyRedirects)
        #expect(failureCode(decide(.get(Self.origin), hops: 2, policy: RedirectPolicy(maximumHops: 2))) == .tooManyRedirects)
        // As `curl -L --max-redirs 0`: no redirect allowed is a failure, not the 3xx returned.
        let none = decide(.get(Self.origin), hops: 0, policy: RedirectPolicy(maximumHops: 0))
        #expect(failureCode(none) == .tooManyRedirects)
        if case .fail(let error) = none { #expect(error.message.contains("RedirectPolicy.none")) }
        let visited: Set = ["GET https://api.example.com/next"]
        #expect(failureCode(decide(.get(Self.origin), visited: visited)) == .tooManyRedirects)
        #expect(failureCode(decide(.get(Self.origin), visited: visited, policy: RedirectPolicy(allowsRevisiting: true))) == nil)
        // Post/redirect/get to the same URL is no loop: the method differs.
        #expect(failureCode(decide(.post(Self.origin), status: 303, visited: ["POST https://api.example.com/next"])) == nil)
    }

    @Test("A handler may stop, follow a modified request, but not escape the scheme rules")
    func handler() throws {
        let stop = RedirectPolicy(handler: { _ in .stop })
        #expect(isDelivered(decide(.get(Self.origin), policy: stop)))
        let modify = RedirectPolicy(handler: { context in
            #expect(context.hop == 3 && context.isCrossOrigin && context.response.status.code == 302)
            return .followModified(context.next.header("X-Added", "1"))
        })
        let modified = try next(decide(.get(Self.origin), location: "https://other.example.com/", hops: 2, policy: modify))
        #expect(names(modified).contains("x-added"))
        let escape = RedirectPolicy(handler: { _ in .followModified(.get("file:///etc/passwd")) })
        #expect(failureCode(decide(.get(Self.origin), policy: escape)) == .insecureRedirect)
    }

    @Test("A handler's own request to another origin loses its credentials, defaults included, but keeps its custom headers")
    func handlerCannotLeakCredentials() throws {
        let retargeting = RedirectPolicy(handler: { context in
            var keepPost = context.request  // the unstripped request, re-aimed
            keepPost.url = context.next.url
            return .followModified(keepPost)
        })
        let defaults: HTTPFields = [.authorization: "Bearer default", .userAgent: "UA"]
        let moved = try next(decide(
            secrets.basicAuth(username: "u", password: "p"), location: "https://other.example.com/", policy: retargeting,
            defaults: defaults))
        #expect(moved.method == .post && moved.credential == nil && moved.omitsDefaultHeaders)
        #expect(names(moved) == ["x-trace", "x-forward-me", "accept", "user-agent"])
        // Same-origin `next` pointed elsewhere by the handler: stripped too.
        let fresh = RedirectPolicy(handler: { _ in .followModified(Request.get("https://evil.example/").header("Cookie", "c=1")) })
        let elsewhere = try next(decide(secrets, location: "/v1/same", policy: fresh, defaults: defaults))
        #expect(names(elsewhere) == ["user-agent"])
    }

    @Test("A handler may stop a redirect that would resend a one-shot stream")
    func handlerSeesStreamRedirects() {
        let streamed = Request.post(Self.origin).body(streaming: AsyncStream<Data> { $0.finish() }, length: nil)
        #expect(isDelivered(decide(streamed, status: 307, policy: RedirectPolicy(handler: { _ in .stop }))))
    }
}
