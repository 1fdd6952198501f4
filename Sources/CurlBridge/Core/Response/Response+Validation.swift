#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Response {
    /// This response, or an error carrying it when its status or content type is not acceptable.
    ///
    /// Content types match by type and subtype, ignoring parameters, with `*` wildcards on either
    /// side (`application/*`, `*/*`). A response without `Content-Type` passes when its body is
    /// empty.
    ///
    /// - Parameters:
    ///   - statusCodes: The acceptable codes; `200..<300` by default.
    ///   - contentTypes: The acceptable media types; by default those of the request's `Accept`
    ///     header (any type, when the request sent none).
    /// - Throws: ``RequestError`` with code ``RequestError/Code/unacceptableStatus`` or
    ///   ``RequestError/Code/unacceptableContentType``.
    @discardableResult
    public func validate(
        statusCodes: some RangeExpression<Int> = 200..<300, contentTypes: [String]? = nil
    ) throws(RequestError) -> Response {
        guard statusCodes.contains(status.code) else {
            throw RequestError(
                .unacceptableStatus, "status \(status.code) is not acceptable", url: url, response: self)
        }
        let acceptable = (contentTypes ?? requestAccept.map(MediaType.list) ?? []).compactMap(MediaType.init)
        guard !acceptable.isEmpty, !acceptable.contains(where: \.isWildcard) else { return self }
        guard let received = headerFields[.contentType].flatMap(MediaType.init) else {
            if body.isEmpty { return self }
            throw RequestError(
                .unacceptableContentType, "the response has a body but no Content-Type", url: url, response: self)
        }
        guard acceptable.contains(where: { $0.matches(received) }) else {
            throw RequestError(
                .unacceptableContentType,
                "content type \(received) is not one of \(acceptable.map(\.description).joined(separator: ", "))",
                url: url, response: self)
        }
        return self
    }

    /// The body decoded as JSON into `Value`.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder; a default `JSONDecoder` unless given.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/decodingFailed`` and the
    ///   `DecodingError` as ``RequestError/underlying``.
    public func decode<Value: Decodable>(_ type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws(RequestError) -> Value {
        if body.isEmpty, allowsEmptyBody, let empty = Value.self as? any EmptyResponse.Type, let value = empty.emptyValue() as? Value {
            return value
        }
        do {
            return try decoder.decode(type, from: body)
        } catch {
            throw RequestError(
                .decodingFailed, "the body could not be decoded as \(Value.self): \(error)",
                url: url, response: self, underlying: error)
        }
    }
}
