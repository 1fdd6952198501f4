#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// What to do with a response head, decided as a value: deliver it, follow it, or fail. Pure but
/// for the policy's handler, so every rule is unit-tested without sockets.
enum RedirectStep {
    /// Not a redirect, or one not followed: the response is the result.
    case deliver
    /// Send `next`, recording `hop`.
    case follow(next: Request, hop: RedirectHop)
    /// Stop with this error.
    case fail(RequestError)

    /// Whether `status` redirects with a `Location`: 301, 302, 303, 307 or 308.
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// Headers that describe a body, dropped when the next request has none (Fetch's
    /// request-body-header names).
    static let bodyHeaderNames: Set<String> = [
        "content-type", "content-encoding", "content-language", "content-location", "content-length",
        "transfer-encoding",
    ]

    /// The step for `head`, the answer to `request` sent to `url`.
    ///
    /// - Parameters:
    ///   - head: The response head.
    ///   - request: The request this hop sent.
    ///   - url: The absolute URL this hop was sent to.
    ///   - hopsSoFar: Redirects already followed in this chain.
    ///   - visited: `"METHOD URL"` of every request sent in this chain, for loop detection.
    ///   - policy: The redirect policy in force.
    ///   - defaultHeaders: The configuration's default headers, merged into a cross-origin hop's
    ///     filtered headers (they may hold secrets too).
    static func decide(
        _ head: ResponseHead, request: Request, url: String, hopsSoFar: Int, visited: Set<String>,
        policy: RedirectPolicy, defaultHeaders: HTTPFields
    ) -> RedirectStep {
        guard isRedirect(head.status.code), policy.followsRedirects,
            let location = head.headerFields[.location]
        else { return .deliver }
        let failure = { (code: RequestError.Code, message: String) in
            RedirectStep.fail(RequestError(code, message, method: request.method, url: url))
        }
        guard hopsSoFar < policy.maximumHops else {
            let limit = policy.maximumHops == 0
                ? "the policy allows no redirect (RedirectPolicy.none returns the 3xx instead)"
                : "more than \(policy.maximumHops) redirects"
            return failure(.tooManyRedirects, "\(limit); the last pointed to \(location)")
        }
        guard let current = URL(string: url), let target = current.resolvingLocation(location) else {
            return failure(.protocolError, "the \(head.status.code) redirect's Location \(location.debugDescription) is not a URL")
        }
        let hop = RedirectHop(status: head.status, url: url, location: target.absoluteString)
        let origin = Credential.Origin(current.absoluteString)
        var next = nextRequest(after: request, status: head.status.code, to: target)
        let crossOrigin = origin != Credential.Origin(target.absoluteString)
        if crossOrigin {
            next = stripped(next, keeping: policy.crossOriginHeaders, defaultHeaders: defaultHeaders)
        }
        if let handler = policy.handler {
            let context = RedirectContext(
                response: head, request: request, next: next, hop: hopsSoFar + 1, isCrossOrigin: crossOrigin)
            switch handler(context) {
            case .follow: break
            case .stop: return .deliver
            case .followModified(let modified): next = modified
            }
        }
        let nextURL = URL(string: next.url)
            .flatMap { $0.scheme == nil ? URL(string: next.url, relativeTo: current)?.absoluteURL : $0 }?.withValidPort
        guard let nextURL, let scheme = nextURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return failure(.insecureRedirect, "refused a redirect to \(next.url): only http and https are followed")
        }
        guard let host = nextURL.host, !host.isEmpty else {
            return failure(.protocolError, "the redirect's target \(nextURL.absoluteString.debugDescription) has no host")
        }
        if current.scheme?.lowercased() == "https", scheme == "http", !policy.allowsDowngradeToPlainHTTP {
            return failure(.insecureRedirect, "refused a redirect from https to plain http (\(nextURL.absoluteString))")
        }
        next.url = nextURL.absoluteString
        // Whatever a handler returned: credentials never reach another origin.
        if origin != Credential.Origin(next.url) {
            next.sensitiveHeaderNames.formUnion(request.sensitiveHeaderNames)
            next = stripped(next, keeping: .allExceptSensitive, defaultHeaders: defaultHeaders)
        }
        if ResendRule.denial(.redirectKeepingBody, ResendRule.Facts(next)) != nil {
            return failure(
                .bodyNotRewindable,
                "the server redirected with \(head.status.code), which resends the body, and a body stream can be sent once only")
        }
        if !policy.allowsRevisiting, visited.contains(visitKey(next.method, next.url)) {
            return failure(.tooManyRedirects, "redirect loop: \(next.method) \(next.url) was already requested in this chain")
        }
        return .follow(next: next, hop: hop)
    }

    /// The key loop detection compares.
    static func visitKey(_ method: HTTPRequest.Method, _ url: String) -> String {
        "\(method.rawValue) \(url)"
    }

    /// `request` re-aimed at `target` with RFC 9110's method rules: 303 becomes GET (HEAD stays
    /// HEAD), 301 and 302 turn a POST into a GET, and both drop the body; 307 and 308 keep both.
    private static func nextRequest(after request: Request, status: Int, to target: URL) -> Request {
        var next = request
        next.url = target.absoluteString
        next.queryItems = []
        next.encodedQueryParts = []
        let becomesGET = (status == 303 && request.method != .head) || ((status == 301 || status == 302) && request.method == .post)
        if becomesGET {
            next.method = .get
            next.body = nil
            next.headerFields = HTTPFields(next.headerFields.filter { !bodyHeaderNames.contains($0.name.canonicalName) })
        }
        return next
    }

    /// `request` with only the headers a hop to another origin may carry and no credential, the
    /// defaults merged in first (unless they already were) so that they are filtered too.
    private static func stripped(
        _ request: Request, keeping policy: RedirectPolicy.CrossOriginHeaders, defaultHeaders: HTTPFields
    ) -> Request {
        var next = request
        var merged = request.omitsDefaultHeaders
            ? HTTPFields()
            : HTTPFields(defaultHeaders.filter { field in !request.headerFields.contains { $0.name == field.name } })
        merged.append(contentsOf: request.headerFields)
        // Credentials (the headers `curlDescription` always redacts) never cross, whatever the policy.
        let sensitive = Set(Request.alwaysSensitiveHeaderNames.union(request.sensitiveHeaderNames).map(\.canonicalName))
        let forwardable = Set(request.forwardableHeaderNames.map(\.canonicalName))
        next.headerFields = HTTPFields(merged.filter { field in
            let name = field.name.canonicalName
            if sensitive.contains(name) { return false }
            switch policy {
            case .allExceptSensitive: return true
            case .safeListOnly:
                if name == "content-type" || name == "content-language" { return next.body != nil }
                return RedirectPolicy.crossOriginSafeHeaders.contains(name) || forwardable.contains(name)
            }
        })
        next.credential = nil
        next.omitsDefaultHeaders = true
        return next
    }
}
