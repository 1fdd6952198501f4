import HTTPTypes

extension Request {
    /// This request with a header field added (a field of the same name is kept; both are sent).
    ///
    /// A name that is not a valid token, or a value containing CR, LF or NUL, is reported at
    /// send time as ``RequestError/Code/invalidHeader``: header injection is refused, never
    /// silently "fixed".
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    ///   - sensitive: Whether ``curlDescription(for:revealingSecrets:)`` redacts the value (as it
    ///     always does for `Authorization`, `Proxy-Authorization` and `Cookie`), and whether a
    ///     redirect to another origin drops it (always); `false` by default.
    ///   - forwardable: Whether a redirect to another origin carries it even though it is not on
    ///     ``RedirectPolicy/crossOriginSafeHeaders``; `false` by default. A sensitive header is
    ///     never forwarded.
    public func header(_ name: String, _ value: String, sensitive: Bool = false, forwardable: Bool = false) -> Request {
        guard let field = Self.validatedField(name, value) else {
            return failing(.invalidHeader, "header \(name.debugDescription): \(value.debugDescription) contains a forbidden character")
        }
        var copy = self
        copy.headerFields.append(field)
        if sensitive { copy.sensitiveHeaderNames.insert(field.name) }
        if forwardable { copy.forwardableHeaderNames.insert(field.name) }
        return copy
    }

    /// This request with every field named `name` replaced by one with `value`.
    public func setHeader(_ name: String, _ value: String) -> Request {
        guard let field = Self.validatedField(name, value) else {
            return failing(.invalidHeader, "header \(name.debugDescription): \(value.debugDescription) contains a forbidden character")
        }
        var copy = self
        copy.headerFields[field.name] = field.value
        return copy
    }

    /// This request with `fields` added (fields built through swift-http-types are already valid).
    public func headers(_ fields: HTTPFields) -> Request {
        var copy = self
        copy.headerFields.append(contentsOf: fields)
        return copy
    }

    /// The field, or `nil` when the name is not a token or the value holds CR, LF or NUL.
    private static func validatedField(_ name: String, _ value: String) -> HTTPField? {
        guard let fieldName = HTTPField.Name(name),
              !value.containsHeaderBreakingCharacter
        else { return nil }
        return HTTPField(name: fieldName, value: value)
    }
}
