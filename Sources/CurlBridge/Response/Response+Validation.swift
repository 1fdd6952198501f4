import Foundation

extension Response {
    /// This response, or an ``RequestError/Code/unacceptableStatus`` error carrying it.
    ///
    /// - Parameter statusCodes: The acceptable codes; `200..<300` by default.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/unacceptableStatus``.
    @discardableResult
    public func validate(statusCodes: some RangeExpression<Int> = 200..<300) throws(RequestError) -> Response {
        guard statusCodes.contains(status.code) else {
            throw RequestError(
                .unacceptableStatus, "status \(status.code) is not acceptable", url: url, response: self)
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
        do {
            return try decoder.decode(type, from: body)
        } catch {
            throw RequestError(
                .decodingFailed, "the body could not be decoded as \(Value.self): \(error)",
                url: url, response: self, underlying: error)
        }
    }
}
