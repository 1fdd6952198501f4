import HTTPTypes

/// A request as the cache sees it: method, key, header fields and policy.
struct CacheRequest: Sendable {
    var method: HTTPRequest.Method
    /// The absolute URL without a fragment: the cache key.
    var url: String
    var headerFields: HTTPFields
    var policy: CachePolicy

    init(method: HTTPRequest.Method, url: String, headerFields: HTTPFields, policy: CachePolicy) {
        self.method = method
        self.url = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? url
        self.headerFields = headerFields
        self.policy = policy
    }

    /// `prepared`'s method, URL, policy and header lines (`Name: value`, or `Name;` for an empty value).
    init(_ prepared: PreparedRequest) {
        var fields = HTTPFields()
        for line in prepared.headerLines {
            guard let separator = line.firstIndex(where: { $0 == ":" || $0 == ";" }),
                  let name = HTTPField.Name(String(line[..<separator])) else { continue }
            let value = line[line.index(after: separator)...].trimmingCharacters(in: .whitespaces)
            // `Name:` with nothing after it only stops curl from adding its own field.
            if line[separator] == ":" && value.isEmpty { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        self.init(method: prepared.method, url: prepared.url, headerFields: fields, policy: prepared.cachePolicy)
    }

    /// The request's `Cache-Control`, with `Pragma: no-cache` read as `no-cache` when it has none
    /// (RFC 9111 §5.4).
    var cacheControl: CacheControl {
        var control = CacheControl(headerFields)
        if headerFields[.cacheControl] == nil,
           headerFields[values: HTTPField.Name("Pragma")!].contains(where: { $0.lowercased().contains("no-cache") }) {
            control.noCache = true
        }
        return control
    }

    /// Whether the caller asked for a range or made the request conditional on a state the cache
    /// cannot judge: the cache then keeps out of it (it stores no partial content).
    var isPartialOrPrecondition: Bool {
        Self.bypassingNames.contains { headerFields[$0] != nil }
    }

    /// Whether the caller made the request conditional with validators (`If-None-Match`,
    /// `If-Modified-Since`): a fresh stored response can answer it with `304` (RFC 9111 §4.3.2).
    var hasValidators: Bool {
        headerFields[.ifNoneMatch] != nil || headerFields[.ifModifiedSince] != nil
    }

    /// Whether `stored` satisfies the caller's validators: an entity tag `If-None-Match` lists
    /// (weak comparison), or else no change since `If-Modified-Since`.
    func isNotModified(_ stored: StoredResponse) -> Bool {
        if let tags = headerFields[.ifNoneMatch] {
            guard let etag = stored.headerFields[.eTag] else { return false }
            let listed = tags.split(separator: ",").map { Self.weak($0.trimmingCharacters(in: .whitespaces)) }
            return listed.contains("*") || listed.contains(Self.weak(etag))
        }
        guard let since = headerFields[.ifModifiedSince].flatMap(HTTPDate.parse),
              let modified = (stored.headerFields[HTTPField.Name("Last-Modified")!] ?? stored.headerFields[.date]).flatMap(HTTPDate.parse)
        else { return false }
        return modified <= since
    }

    /// An entity tag without its weakness marker.
    private static func weak(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }

    private static let bypassingNames: [HTTPField.Name] = [
        .range, .ifMatch, .ifUnmodifiedSince, HTTPField.Name("If-Range")!,
    ]
}
