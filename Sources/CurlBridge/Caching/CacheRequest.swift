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

    /// Whether the caller made the request conditional or partial itself: the cache then keeps
    /// out of it (it stores no partial content and answers no conditional of the caller's).
    var isConditionalOrPartial: Bool {
        Self.callerConditionNames.contains { headerFields[$0] != nil }
    }

    private static let callerConditionNames: [HTTPField.Name] = [
        .range, .ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, HTTPField.Name("If-Range")!,
    ]
}
