import Foundation
import HTTPTypes

/// A request checked and resolved against a configuration: everything the transport needs, in
/// the form curl takes it. Only a valid request becomes a `PreparedRequest`.
struct PreparedRequest: Sendable {
    /// The method.
    let method: HTTPRequest.Method
    /// The absolute URL, query included.
    let url: String
    /// Header lines as curl takes them: `"Name: value"`, or `"Name;"` for an empty value.
    let headerLines: [String]
    /// The body to send, if any.
    let body: Data?
    /// Connect timeout in milliseconds, `nil` for none.
    let connectTimeoutMilliseconds: Int?
    /// Idle timeout in nanoseconds, `nil` for none.
    let idleTimeoutNanoseconds: UInt64?
    /// Total timeout in milliseconds, `nil` for none.
    let totalTimeoutMilliseconds: Int?
    /// The cap on a body held in memory.
    let maximumBodySize: Int
}

extension Request {
    /// This request checked and resolved against `configuration`, or the first problem with it.
    func prepared(for configuration: Configuration) -> Result<PreparedRequest, RequestError> {
        if let problem { return .failure(problem) }
        let resolvedURL: String
        switch resolveURL(baseURL: configuration.baseURL) {
        case .success(let url): resolvedURL = url
        case .failure(let error): return .failure(error)
        }
        let timeouts = configuration.timeouts.overridden(by: self.timeouts)
        return .success(PreparedRequest(
            method: method,
            url: resolvedURL,
            headerLines: headerLines(merging: configuration.defaultHeaders),
            body: body?.data,
            connectTimeoutMilliseconds: timeouts.connect?.roundedUpMilliseconds,
            idleTimeoutNanoseconds: timeouts.idle.map { UInt64($0.roundedUpMilliseconds) * 1_000_000 },
            totalTimeoutMilliseconds: timeouts.total?.roundedUpMilliseconds,
            maximumBodySize: configuration.maximumBodySize
        ))
    }

    /// The absolute URL with query items appended, or why there is none.
    private func resolveURL(baseURL: URL?) -> Result<String, RequestError> {
        let invalid = { (reason: String) in
            Result<String, RequestError>.failure(RequestError(.invalidURL, reason, method: method, url: url))
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
        // The fragment is never sent; dropping it lets query items go at the end.
        var absolute = parsed.absoluteString
        if let hash = absolute.firstIndex(of: "#") {
            absolute.removeSubrange(hash...)
        }
        if !queryItems.isEmpty {
            let query = queryItems.map { item in
                let name = PercentEncoding.encoded(item.name)
                return item.value.map { name + "=" + PercentEncoding.encoded($0) } ?? name
            }.joined(separator: "&")
            let separator = parsed.query == nil ? "?" : (absolute.hasSuffix("&") || absolute.hasSuffix("?") ? "" : "&")
            absolute += separator + query
        }
        return .success(absolute)
    }

    /// The configuration's default headers under this request's own (the request's win, by
    /// name), plus the body's content type and the headers that keep curl from adding its own.
    private func headerLines(merging defaults: HTTPFields) -> [String] {
        var fields = HTTPFields()
        for field in defaults where headerFields[field.name] == nil {
            fields.append(field)
        }
        fields.append(contentsOf: headerFields)
        if let contentType = body?.contentType, fields[.contentType] == nil {
            fields.append(HTTPField(name: .contentType, value: contentType))
        }
        var lines = fields.map { field in
            field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)"
        }
        if body != nil && fields[.contentType] == nil {
            lines.append("Content-Type:")  // curl would otherwise claim a form body
        }
        if fields[.expect] == nil {
            lines.append("Expect:")  // no 100-continue round trip for large bodies
        }
        return lines
    }
}
