#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

extension Request {
    /// Where ``parameters(_:encoder:destination:)`` puts the encoded parameters.
    public enum ParameterDestination: Sendable, Hashable {
        /// The query string for `GET`, `HEAD` and `DELETE`, the body otherwise (as
        /// AFHTTPRequestSerializer's `HTTPMethodsEncodingParametersInURI`). The default.
        case methodDependent
        /// Always the query string.
        case queryString
        /// Always the body, as `application/x-www-form-urlencoded; charset=utf-8`.
        case httpBody
    }

    /// The methods whose parameters go in the query string under ``ParameterDestination/methodDependent``.
    static let methodsWithParametersInQuery: Set<HTTPRequest.Method> = [.get, .head, .delete]

    /// This request with `value` encoded as form parameters, in the query string or the body.
    ///
    /// An encoding failure is reported at send time as ``RequestError/Code/encodingFailed``.
    ///
    /// - Parameters:
    ///   - value: A keyed `Encodable` value (a struct or dictionary).
    ///   - encoder: The form encoder and its options; defaults unless given.
    ///   - destination: Query string or body; ``ParameterDestination/methodDependent`` by default.
    public func parameters<Value: Encodable>(
        _ value: Value, encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(),
        destination: ParameterDestination = .methodDependent
    ) -> Request {
        let encoded: String
        do {
            encoded = try encoder.encode(value)
        } catch {
            return failing(.encodingFailed, "the parameters could not be form-encoded: \(error)", underlying: error)
        }
        let inQuery = switch destination {
        case .methodDependent: Self.methodsWithParametersInQuery.contains(method)
        case .queryString: true
        case .httpBody: false
        }
        guard inQuery else {
            return body(Data(encoded.utf8), contentType: "application/x-www-form-urlencoded; charset=utf-8")
        }
        var copy = self
        copy.encodedQueryParts.append(encoded)
        return copy
    }
}
