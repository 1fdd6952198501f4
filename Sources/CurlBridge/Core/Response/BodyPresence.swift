import HTTPTypes

/// Whether a response has a body at all (RFC 9112 §6.3, RFC 9110 §6.4.1): a response to `HEAD`,
/// and every `1xx`, `204` and `304`, ends at its head whatever its fields declare. Asked by the
/// in-memory cap, the close-delimited body check and a stub's `Content-Length`. (A stub's and a
/// stored response's empty `HEAD` body and a download's length check still decide on the method
/// alone.)
enum BodyPresence {
    /// Whether a response with `status` may have a body, whatever the request's method.
    static func statusAllowsBody(_ status: Int) -> Bool {
        status >= 200 && status != 204 && status != 304
    }

    /// Whether the response with `status` to a `method` request has a body.
    static func responseHasBody(method: HTTPRequest.Method, status: Int) -> Bool {
        method != .head && statusAllowsBody(status)
    }
}
