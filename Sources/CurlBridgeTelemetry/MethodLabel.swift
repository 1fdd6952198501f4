import HTTPTypes

extension HTTPRequest.Method {
    /// The method as a metric label or `http.request.method` value: its name when it is one of the
    /// methods of RFC 9110 and RFC 5789, `_OTHER` otherwise, so that a client sending arbitrary
    /// methods cannot grow a metric's label set without bound (OpenTelemetry's rule).
    var boundedLabel: String {
        Self.knownNames.contains(rawValue) ? rawValue : "_OTHER"
    }

    /// The methods OpenTelemetry knows by name.
    private static let knownNames: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]
}
