#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Logging

/// A request checked and resolved against a configuration: everything the transport needs, in
/// the form curl takes it. Only a valid request becomes a `PreparedRequest`.
///
/// A class, immutable: it passes from the caller's thread to the loop, the engine and its
/// transfer, and each of those hands is a reference, not fourteen fields.
final class PreparedRequest: Sendable {
    /// The method.
    let method: HTTPRequest.Method
    /// The absolute URL, query included.
    let url: String
    /// Whether ``url`` is `https` (else `http`).
    let usesTLS: Bool
    /// Header lines as curl takes them: `"Name: value"`, or `"Name;"` for an empty value.
    let headerLines: [String]
    /// The body to send, if any.
    let body: Request.Body.Content?
    /// The connect, idle and total timeouts, in curl's units.
    let timeLimits: TimeLimits
    /// The cap on a body held in memory.
    let maximumBodySize: Int
    /// The cap on the response's header bytes.
    let maximumHeaderSize: Int
    /// Whether sending the request twice has the effect of sending it once: an idempotent method,
    /// or a request marked idempotent (``Request/idempotent(key:)``).
    let isIdempotent: Bool
    /// The `Accept` value sent, if the request or the defaults set one.
    let accept: String?
    /// Whether the transport's cookie jar takes part.
    let usesCookieJar: Bool
    /// What libcurl answers an authentication challenge with (Digest, NTLM), if anything.
    let authentication: ChallengeCredential?
    /// How its transfer logs curl's verbose output; `nil` unless its logger is at `trace` level.
    let trace: TransferTrace?
    /// The request's own pinning (``Request/pinning``), which replaces the configuration's pins.
    let pinning: Pinning?
    /// How it uses the transport's cache.
    let cachePolicy: CachePolicy
    /// Whether its transfer reports the `Cookie` lines curl sent (``TransferEnd/sentCookieLines``):
    /// asked by a cache that may store the response, which must know whose it is.
    let reportsSentCookies: Bool

    /// Creates a prepared request from its parts (``Request/prepared(with:logLevel:)`` checks them).
    init(
        method: HTTPRequest.Method,
        url: String,
        usesTLS: Bool,
        headerLines: [String],
        body: Request.Body.Content?,
        timeLimits: TimeLimits,
        maximumBodySize: Int,
        maximumHeaderSize: Int,
        isIdempotent: Bool,
        accept: String?,
        usesCookieJar: Bool,
        authentication: ChallengeCredential?,
        trace: TransferTrace?,
        pinning: Pinning? = nil,
        cachePolicy: CachePolicy = .useProtocolCachePolicy,
        reportsSentCookies: Bool = false
    ) {
        self.method = method
        self.url = url
        self.usesTLS = usesTLS
        self.headerLines = headerLines
        self.body = body
        self.timeLimits = timeLimits
        self.maximumBodySize = maximumBodySize
        self.maximumHeaderSize = maximumHeaderSize
        self.isIdempotent = isIdempotent
        self.accept = accept
        self.usesCookieJar = usesCookieJar
        self.authentication = authentication
        self.trace = trace
        self.pinning = pinning
        self.cachePolicy = cachePolicy
        self.reportsSentCookies = reportsSentCookies
    }

    /// Whether the body is a multipart form.
    var isMultipart: Bool {
        if case .multipart = body { return true }
        return false
    }
}

/// What every request of one transport starts from, computed once when the transport is made.
/// A class, immutable: every request reads it, and a reference is what is passed.
final class RequestDefaults: Sendable {
    /// A default header, ready to send.
    struct HeaderLine: Sendable {
        let name: HTTPField.Name
        let value: String
        let line: String
    }

    let baseURL: URL?
    let timeouts: Timeouts
    /// ``timeouts`` as curl takes them, for the requests that override none.
    let timeLimits: TimeLimits
    let headerLines: [HeaderLine]
    /// The default headers' lines alone: what a request with no fields and no body of its own
    /// sends, shared rather than built again for each.
    let lines: [String]
    /// The default `Accept` value, if the defaults set one.
    let accept: String?
    let maximumBodySize: Int
    let maximumHeaderSize: Int
    let credentials: [Credential.Origin: Credential]
    let plainHTTPCredentials: PlainHTTPCredentialRule
    let logging: RequestLogDefaults
    /// Whether the transport has a cache (without one, ``CachePolicy/returnCacheDataDontLoad`` fails).
    let hasCache: Bool

    init(_ configuration: Configuration) {
        baseURL = configuration.baseURL.map(Self.directoryURL)
        timeouts = configuration.timeouts
        timeLimits = TimeLimits(configuration.timeouts)
        headerLines = configuration.defaultHeaders.map {
            HeaderLine(name: $0.name, value: $0.value, line: Request.curlHeaderLine($0))
        }
        lines = headerLines.map(\.line)
        accept = headerLines.first { $0.name == .accept }?.value
        maximumBodySize = configuration.maximumBodySize
        maximumHeaderSize = configuration.maximumHeaderSize
        credentials = configuration.credentials
        plainHTTPCredentials = PlainHTTPCredentialRule(
            configurationAllows: configuration.allowsCredentialsOverPlainHTTP,
            isProxied: configuration.proxy.httpProxy != nil, usesUnixSocket: configuration.unixSocketPath != nil)
        logging = RequestLogDefaults(configuration)
        hasCache = configuration.cacheSlot != nil
    }
}

extension RequestDefaults {
    /// `url` with a trailing slash on its path, as AFHTTPSessionManager does: relative paths then
    /// resolve *inside* the base path (`…/v1` + `users` is `…/v1/users`, not `…/users`).
    static func directoryURL(_ url: URL) -> URL {
        guard !url.path.isEmpty, !url.path.hasSuffix("/") else { return url }
        return url.appendingPathComponent("", isDirectory: true)
    }
}

extension Request {
    /// This request checked and resolved against a transport's defaults, or the first problem with it.
    ///
    /// - Parameters:
    ///   - defaults: The transport's defaults.
    ///   - logLevel: The level of the request's effective logger, when the caller has read it
    ///     (each read copies the logger's handler); read here otherwise.
    func prepared(with defaults: RequestDefaults, logLevel: Logger.Level? = nil) -> Result<PreparedRequest, RequestError> {
        if let problem { return .failure(problem) }
        if cachePolicy == .returnCacheDataDontLoad, !defaults.hasCache {
            return .failure(RequestError(
                .notCached, "the request may only be answered from the cache, and the transport has none", method: method, url: url))
        }
        if let (code, message) = body?.multipartForm?.problem() {
            return .failure(RequestError(code, message, method: method, url: url))
        }
        if let file = body?.fileURL, let problem = ReadableFile.problem(at: file, role: "body file") {
            return .failure(RequestError(.fileIO, problem, method: method, url: url))
        }
        if let contentType = body?.contentType, contentType.containsHeaderBreakingCharacter {
            return .failure(RequestError(
                .invalidHeader, "body content type \(contentType.debugDescription) contains CR, LF or NUL", method: method, url: url))
        }
        let resolved: PlainAbsoluteURL
        switch resolveURL(baseURL: defaults.baseURL) {
        case .success(let url): resolved = url
        case .failure(let error): return .failure(error)
        }
        let resolvedURL = resolved.string
        let authentication: PreparedAuthentication
        let lines = headerLines(merging: defaults)
        switch self.authentication(of: lines, target: resolved, defaults: defaults) {
        case .success(let prepared): authentication = prepared
        case .failure(let error): return .failure(error)
        }
        let limits = timeouts == Timeouts() ? defaults.timeLimits : TimeLimits(defaults.timeouts.overridden(by: timeouts))
        return .success(PreparedRequest(
            method: method,
            url: resolvedURL,
            usesTLS: resolved.usesTLS,
            headerLines: authentication.headerLines,
            body: body?.content,
            timeLimits: limits,
            maximumBodySize: defaults.maximumBodySize,
            maximumHeaderSize: defaults.maximumHeaderSize,
            isIdempotent: isIdempotent,
            accept: headerFields.first { $0.name == .accept }?.value
                ?? (omitsDefaultHeaders ? nil : defaults.accept),
            usesCookieJar: usesCookieJar,
            authentication: authentication.challenge,
            trace: transferTrace(
                url: resolvedURL, headerLines: authentication.headerLines, challenge: authentication.challenge,
                defaults: defaults.logging, level: logLevel),
            pinning: pinning,
            cachePolicy: cachePolicy
        ))
    }

    /// The absolute URL with query items appended, or why there is none.
    private func resolveURL(baseURL: URL?) -> Result<PlainAbsoluteURL, RequestError> {
        if let plain = PlainAbsoluteURL(url) {
            return .success(plain.appending(query: encodedQuery))
        }
        let invalid = { (reason: String) in
            Result<PlainAbsoluteURL, RequestError>.failure(RequestError(.invalidURL, reason, method: method, url: url))
        }
        let parsed: URL?
        if let absolute = URL(string: url), absolute.scheme != nil {
            parsed = absolute
        } else if let baseURL {
            parsed = URL(string: url, relativeTo: baseURL)?.absoluteURL
        } else if URL(string: url) == nil {
            return invalid("\(url.debugDescription) is not a URL")
        } else {
            return invalid("\(url.debugDescription) is relative and the configuration has no base URL")
        }
        guard let parsed, let scheme = parsed.scheme?.lowercased() else {
            return invalid("\(url.debugDescription) is not a URL")
        }
        guard scheme == "http" || scheme == "https" else {
            return .failure(RequestError(
                .unsupportedScheme, "scheme \(scheme.debugDescription) is not http or https", method: method, url: url))
        }
        guard let host = parsed.host, !host.isEmpty else {
            return invalid("\(url.debugDescription) has no host")
        }
        return .success(PlainAbsoluteURL(parsed: parsed.absoluteString).appending(query: encodedQuery))
    }

    /// The query items as an RFC 3986 query string, `nil` when there are none.
    private var encodedQuery: String? {
        if queryItems.isEmpty, encodedQueryParts.isEmpty { return nil }  // most requests: nothing to build
        let parts = queryItems.map { item in
            let name = PercentEncoding.encoded(item.name)
            return item.value.map { name + "=" + PercentEncoding.encoded($0) } ?? name
        } + encodedQueryParts.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: "&")
    }

    /// The default header lines under this request's own fields (the request's win, by name),
    /// plus the body's content type and the headers that keep curl from adding its own; the
    /// defaults' own list when the request adds nothing to it (no field, no body, not a `POST`).
    private func headerLines(merging transportDefaults: RequestDefaults) -> [String] {
        let defaults = omitsDefaultHeaders ? [] : transportDefaults.headerLines
        if headerFields.isEmpty, body == nil, method != .post {
            return omitsDefaultHeaders ? [] : transportDefaults.lines
        }
        var lines: [String] = []
        lines.reserveCapacity(defaults.count + headerFields.count + 3)
        var names: [HTTPField.Name] = []
        for header in defaults where !headerFields.contains(where: { $0.name == header.name }) {
            lines.append(header.line)
            names.append(header.name)
        }
        for field in headerFields {
            lines.append(Self.curlHeaderLine(field))
            names.append(field.name)
        }
        if !names.contains(.contentType) {
            if let contentType = body?.contentType {
                lines.append("Content-Type: \(contentType)")
            } else if (body != nil && body?.multipartForm == nil) || (body == nil && method == .post) {
                lines.append("Content-Type:")  // curl would otherwise claim a form body
            }
        }
        if body != nil, !names.contains(.expect) {
            lines.append("Expect:")  // no 100-continue round trip for large bodies
        }
        return lines
    }

    /// `field` as curl takes it: `"Name: value"`, or `"Name;"` for an empty value.
    static func curlHeaderLine(_ field: HTTPField) -> String {
        field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)"
    }
}
