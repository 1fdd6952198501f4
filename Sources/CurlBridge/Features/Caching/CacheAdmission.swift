#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// Whether a response may be stored (RFC 9111 §3), how a `304` updates a stored response
/// (§4.3.4) and which stored responses an unsafe request makes invalid (§4.4): pure values.
enum CacheAdmission {
    /// Whether the response to `request` with `status` and `fields` may be stored by a private cache.
    static func mayStore(_ request: CacheRequest, status: Int, fields: HTTPFields) -> Bool {
        guard request.partition != nil, request.method == .get, !request.isPartialOrPrecondition, !request.hasValidators,
              (200...599).contains(status), status != 206, status != 304 else { return false }
        let response = CacheControl(fields)
        if request.cacheControl.noStore { return false }
        if response.mustUnderstand {
            // §5.2.2.3: a status whose caching rules the cache implements overrides no-store.
            guard understoodStatuses.contains(status) else { return false }
        } else if response.noStore {
            return false
        }
        if StoredResponse.varyNames(fields).contains("*") { return false }
        // §3.5: a response to a credentialed request only when a directive lets a shared cache
        // store it (`public`, `s-maxage`, `must-revalidate`) and `private` does not forbid that.
        if request.isCredentialed,
           !((response.isPublic || response.sharedMaxAge != nil || response.mustRevalidate) && !response.isPrivate) {
            return false
        }
        return response.maxAge != nil || response.isPublic || response.isPrivate
            || fields[HTTPField.Name("Expires")!] != nil
            || CacheFreshness.heuristicallyCacheable.contains(status)
    }

    /// The statuses whose caching rules this cache implements (for `must-understand`).
    static let understoodStatuses = CacheFreshness.heuristicallyCacheable.union([302, 303, 307])

    /// Fields never stored or taken from a `304`: the hop-by-hop ones (§3.1, §3.2), which describe
    /// one connection or one message, not the resource; and `Set-Cookie`, a session's secret that
    /// must not sit in the cache (a hit never sets cookies: curl's jar sees only the network).
    static let unstoredNames: Set<String> = Set([
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization", "trailer",
    ]).union(cookieSettingNames)

    /// The fields that set cookies.
    static let cookieSettingNames: Set<String> = ["set-cookie", "set-cookie2"]

    /// `fields` without the ones never stored, and those the `Connection` field names.
    static func storable(_ fields: HTTPFields) -> HTTPFields {
        let named = fields[values: .connection].flatMap { $0.split(separator: ",").map { $0.trimmingWhitespace().lowercased() } }
        return HTTPFields(fields.filter { !unstoredNames.contains($0.name.canonicalName) && !named.contains($0.name.canonicalName) })
    }

    /// `stored` updated by a `304 Not Modified` with `fields`, requested at `requestTime` and
    /// received at `responseTime`: each field the 304 carries replaces the stored one of its
    /// name, but `Content-Length` (§3.2). Of more fields than a response can hold
    /// (``StoredResponse/maximumFieldCount``), the 304's last ones are dropped.
    static func updated(_ stored: StoredResponse, by fields: HTTPFields, requestTime: Date, responseTime: Date) -> StoredResponse {
        var updated = stored
        let replacing = storable(fields).filter { $0.name != .contentLength }
        let names = Set(replacing.map(\.name))
        let merged = Array(stored.headerFields.filter { !names.contains($0.name) }) + Array(replacing)
        updated.headerFields = HTTPFields(merged.prefix(StoredResponse.maximumFieldCount))
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    /// Whether a success of `method` makes stored responses invalid: any but the safe methods.
    static func mayInvalidate(_ method: HTTPRequest.Method) -> Bool {
        !safeMethods.contains(method)
    }

    private static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace]

    /// The URLs whose stored responses a request with `method` to `url` makes invalid when the
    /// server answers `status` with `fields` (§4.4): the target and, on the same origin, the
    /// `Location` and `Content-Location` — after a success of an unsafe method only.
    static func invalidated(method: HTTPRequest.Method, url: String, status: Int, fields: HTTPFields) -> [String] {
        guard mayInvalidate(method), (200...399).contains(status) else { return [] }
        var urls = [url]
        guard let base = URL(string: url) else { return urls }
        for name in [HTTPField.Name.location, HTTPField.Name("Content-Location")!] {
            guard let value = fields[name], let target = URL(string: value, relativeTo: base)?.absoluteURL,
                  target.scheme == base.scheme, target.host == base.host, target.port == base.port else { continue }
            urls.append(target.absoluteString)
        }
        return urls
    }
}
