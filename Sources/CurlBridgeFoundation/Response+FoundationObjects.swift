import CurlBridge
import Foundation

// The core (CurlBridge) is compiled against FoundationEssentials, which has no
// `JSONSerialization`, `PropertyListSerialization`, `NSNumber` or `NSNull`: the untyped parsers
// that return those objects live here, in a product that links full Foundation.

extension Response {
    /// The body parsed as JSON into Foundation objects (`[String: Any]`, `[Any]`, `String`,
    /// `NSNumber`, `NSNull`), for code written against `NSJSONSerialization`. An expected empty
    /// body (see `allowsEmptyBody`) gives `NSNull`.
    ///
    /// - Throws: `RequestError` with code `decodingFailed`.
    public func json() throws(RequestError) -> Any {
        if body.isEmpty, allowsEmptyBody { return NSNull() }
        do {
            return try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            throw RequestError(.decodingFailed, "the body is not JSON: \(error)", url: url, response: self, underlying: error)
        }
    }

    /// The body parsed as a property list (XML or binary), for code written against
    /// `NSPropertyListSerialization`. An expected empty body gives `NSNull`.
    ///
    /// - Throws: `RequestError` with code `decodingFailed`.
    public func propertyList() throws(RequestError) -> Any {
        if body.isEmpty, allowsEmptyBody { return NSNull() }
        do {
            return try PropertyListSerialization.propertyList(from: body, format: nil)
        } catch {
            throw RequestError(.decodingFailed, "the body is not a property list: \(error)", url: url, response: self, underlying: error)
        }
    }
}
