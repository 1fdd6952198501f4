import Foundation
import FuzzSupport
import HTTPTypes
@testable import CurlBridge

/// The redirect decision, `RedirectStep.decide`: a fuzzed status, `Location`, request (method,
/// body, credentials, sensitive and forwardable headers), policy and, sometimes, a handler that
/// answers with a fuzzed request of its own.
///
/// Invariants of a followed hop:
/// - the next URL is http or https, and libcurl reads the same scheme, host and port as
///   CurlBridge's origin check; no https → http unless the policy allows it;
/// - a hop to another origin carries no `Authorization`, `Proxy-Authorization`, `Cookie`,
///   sensitive header or credential, and under `safeListOnly` (no handler) only safe or
///   forwardable headers;
/// - RFC 9110's method rules (303 → GET except HEAD, 301/302 turn POST into GET, 307/308 keep
///   method and body); the hop limit and, unless revisiting is allowed, loops are enforced.
/// Not followed: `deliver` only for a non-redirect, no `Location`, no hops allowed or a handler's
/// `stop`; a failure only with a redirect code.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedirect(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let status = input.pick([301, 302, 303, 307, 308, 200, 304, 300, 399])
    let location = input.optionalString()
    let url = input.pick([
        "https://a.example/x/y?q=1", "http://a.example:8080/", "https://[::1]:8443/p/", "https://user@a.example/",
    ])
    let method = input.pick([HTTPRequest.Method.get, .post, .head, .put, .delete])
    var request = Request(method: method, url: url)
        .header("Authorization", "Bearer secret")
        .header("X-Api-Key", "key", sensitive: true)
        .header("X-Trace", "trace", forwardable: true)
        .header("X-Custom", "custom")
        .header("Accept", "application/json")
    if input.flag() { request = request.header("Cookie", "c=1").header("Proxy-Authorization", "Basic eDp5") }
    if input.flag() { request = request.body("payload") }
    if input.flag() { request.credential = .basic(username: "u", password: "p") }
    let handlerURL = input.string()
    let handler: RedirectHandler? = switch input.number(in: 0...3) {
    case 0: nil
    case 1: { _ in .stop }
    case 2: { context in
        var modified = context.next
        modified.url = handlerURL
        modified = modified.header("Authorization", "Bearer handler-secret")
        return .followModified(modified)
    }
    default: { _ in .follow }
    }
    let policy = RedirectPolicy(
        followsRedirects: input.flag(), maximumHops: input.pick([0, 1, 10]),
        crossOriginHeaders: input.pick([.safeListOnly, .allExceptSensitive]),
        allowsDowngradeToPlainHTTP: input.flag(), allowsRevisiting: input.flag(), handler: handler)
    let hopsSoFar = input.number(in: 0...10)
    var visited: Set<String> = [RedirectStep.visitKey(method, url)]
    if input.flag() { visited.insert(RedirectStep.visitKey(.get, input.string())) }
    var fields = HTTPFields()
    if let location { fields[.location] = location }
    let head = ResponseHead(status: .init(code: status), headerFields: fields, httpVersion: .http1_1, url: url)
    let defaultHeaders: HTTPFields = [.userAgent: "fuzz", HTTPField.Name("X-Default-Secret")!: "d"]

    let step = RedirectStep.decide(
        head, request: request, url: url, hopsSoFar: hopsSoFar, visited: visited, policy: policy,
        defaultHeaders: defaultHeaders)
    let isRedirect = [301, 302, 303, 307, 308].contains(status) && fields[.location] != nil
    switch step {
    case .deliver:
        require(!isRedirect || !policy.followsRedirects || handler != nil, "a \(status) to \(location ?? "-") was delivered")
    case .fail(let error):
        require(isRedirect, "a \(status) without Location failed: \(error)")
        require(
            [.tooManyRedirects, .protocolError, .insecureRedirect, .bodyNotRewindable].contains(error.code),
            "unexpected failure \(error.code): \(error)")
    case .follow(let next, let hop):
        require(isRedirect && hopsSoFar < policy.maximumHops, "followed a \(status) past the limit or without Location")
        checkFollowed(next, hop: hop, request: request, url: url, status: status, policy: policy, visited: visited)
    }
    return 0
}

private func checkFollowed(
    _ next: Request, hop: RedirectHop, request: Request, url: String, status: Int, policy: RedirectPolicy,
    visited: Set<String>
) {
    guard let nextURL = URL(string: next.url), let scheme = nextURL.scheme?.lowercased() else {
        require(false, "followed to \(next.url.debugDescription), which is not a URL")
        return
    }
    require(scheme == "http" || scheme == "https", "followed to a non-http(s) URL \(next.url.debugDescription)")
    if url.hasPrefix("https:"), !policy.allowsDowngradeToPlainHTTP {
        require(scheme == "https", "followed https → http to \(next.url) although the policy forbids it")
    }
    // No origin (a host Foundation cannot decode) matches no credential and counts as cross-origin.
    let origin = Credential.Origin(next.url)
    // A URL curl refuses fails the next transfer with invalidURL: late, not unsafe.
    let curl = CurlURLView(next.url)
    if let origin, let curl {
        let internationalised = curl.host.contains("xn--") || origin.host.unicodeScalars.contains { !$0.isASCII }
        require(curl.scheme == origin.scheme && (sameHost(curl.host, origin.host) || internationalised) && curl.port == origin.port,
                "libcurl reads \(next.url.debugDescription) as \(curl), CurlBridge as \(origin)")
    }
    if origin != Credential.Origin(url) {
        let names = Set(next.headerFields.map(\.name.canonicalName))
        for secret in ["authorization", "proxy-authorization", "cookie", "x-api-key"] {
            require(!names.contains(secret), "\(secret) crossed to \(next.url) from \(url)")
        }
        require(next.credential == nil, "the credential crossed to \(next.url) from \(url)")
        if policy.crossOriginHeaders == .safeListOnly, policy.handler == nil {
            for name in names {
                require(RedirectPolicy.crossOriginSafeHeaders.contains(name) || name == "x-trace",
                        "header \(name) crossed to \(next.url) under safeListOnly")
            }
        }
    }
    if !policy.allowsRevisiting {
        require(!visited.contains(RedirectStep.visitKey(next.method, next.url)), "followed a loop back to \(next.url)")
    }
    guard policy.handler == nil else { return }
    require(hop.location == next.url, "hop location \(hop.location) differs from the next URL \(next.url)")
    let becomesGET = (status == 303 && request.method != .head) || ((status == 301 || status == 302) && request.method == .post)
    if becomesGET {
        require(next.method == .get && next.body == nil, "a \(status) after \(request.method) kept \(next.method) or the body")
    } else {
        require(next.method == request.method && (next.body == nil) == (request.body == nil),
                "a \(status) changed \(request.method) to \(next.method) or the body")
    }
}
