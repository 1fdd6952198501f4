import CurlBridge
import Foundation

/// Where a request goes, as a span describes it: the absolute URL with its secrets redacted, and
/// the server's host and port.
///
/// Built from the public ``Request`` alone: its URL, resolved against the configuration's base URL
/// as the transport resolves it (a base path without a trailing slash is a directory), and its
/// ``Request/queryItems``. Query text added with `parameters(_:encoder:destination:)` is not
/// visible here and is left out.
struct RequestTarget: Sendable, Equatable {
    /// The URL for `url.full`: user info replaced by `REDACTED:REDACTED`, the values of sensitive
    /// query parameters by `REDACTED`, the fragment dropped (OpenTelemetry's rules).
    var redactedURL: String
    /// The host, without IPv6 brackets (`server.address`).
    var host: String
    /// The port, or the scheme's default (`server.port`).
    var port: Int

    /// What OpenTelemetry puts in place of a secret.
    static let redacted = "REDACTED"

    /// The target of `request`, or `nil` when its URL cannot be made absolute.
    ///
    /// - Parameters:
    ///   - request: The request, as an adapter or monitor sees it.
    ///   - baseURL: The configuration's base URL, for relative request URLs.
    ///   - sensitiveQueryNames: Query parameter names whose values are redacted, lowercased.
    init?(_ request: Request, baseURL: URL?, sensitiveQueryNames: Set<String>) {
        guard let url = Self.absoluteURL(request.url, baseURL: baseURL),
              var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty
        else { return nil }
        let extraQuery = request.queryItems.map(Self.encoded).joined(separator: "&")
        if !extraQuery.isEmpty {
            let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
            components.percentEncodedQuery = [existing, extraQuery].compactMap { $0 }.joined(separator: "&")
        }
        self.init(components: components, scheme: scheme, host: host, sensitiveQueryNames: sensitiveQueryNames)
    }

    /// The target of an absolute URL string (a redirect's location), or `nil` when it is not one.
    init?(absoluteURL: String, sensitiveQueryNames: Set<String>) {
        guard let components = URLComponents(string: absoluteURL),
              let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty
        else { return nil }
        self.init(components: components, scheme: scheme, host: host, sensitiveQueryNames: sensitiveQueryNames)
    }

    private init(components original: URLComponents, scheme: String, host: String, sensitiveQueryNames: Set<String>) {
        var components = original
        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            components.percentEncodedUser = Self.redacted
            components.percentEncodedPassword = Self.redacted
        }
        components.fragment = nil
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = Self.redactingValues(in: query, named: sensitiveQueryNames)
        }
        redactedURL = components.string ?? ""
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    /// `relative` made absolute: as it is when it has a scheme, else against `baseURL` taken as a
    /// directory (`https://h/v1` + `users` = `https://h/v1/users`), as the transport does.
    static func absoluteURL(_ relative: String, baseURL: URL?) -> URL? {
        if let url = URL(string: relative), url.scheme != nil { return url }
        guard let baseURL, var base = URLComponents(url: baseURL, resolvingAgainstBaseURL: true) else { return nil }
        if !base.percentEncodedPath.hasSuffix("/") { base.percentEncodedPath += "/" }
        guard let directory = base.url else { return nil }
        return URL(string: relative, relativeTo: directory)?.absoluteURL
    }

    /// `query` (percent-encoded) with the value of every parameter named in `names` (compared
    /// without regard to case, after percent-decoding) replaced by ``redacted``.
    static func redactingValues(in query: String, named names: Set<String>) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let rawName = pair[..<equals]
            let name = (String(rawName).removingPercentEncoding ?? String(rawName)).lowercased()
            return names.contains(name) ? "\(rawName)=\(redacted)" : String(pair)
        }.joined(separator: "&")
    }

    /// `name=value`, percent-encoded per RFC 3986 (`name` alone for a `nil` value).
    private static func encoded(_ item: URLQueryItem) -> String {
        let name = item.name.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
        guard let value = item.value else { return name }
        return name + "=" + (value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")
    }

    /// RFC 3986's unreserved characters.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
