/// A type that ``Response/decode(_:decoder:)`` produces from an empty body where one is expected
/// (a `HEAD` request, status 204 or 205) instead of failing to decode nothing.
public protocol EmptyResponse {
    /// The value that stands for "no body".
    static func emptyValue() -> Self
}

/// No content: decode a 204 response as `Empty` to state that nothing is expected.
public struct Empty: Codable, Sendable, Hashable, EmptyResponse {
    /// The empty value.
    public static let value = Empty()

    /// Creates the empty value.
    public init() {}

    /// ``value``.
    public static func emptyValue() -> Empty { value }
}
