#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Request {
    /// This request with one query item appended (`nil` value: the name alone, `?flag`).
    public func query(_ name: String, _ value: String?) -> Request {
        var copy = self
        copy.queryItems.append(URLQueryItem(name: name, value: value))
        return copy
    }

    /// This request with the query items appended, in order.
    public func query(_ items: [URLQueryItem]) -> Request {
        var copy = self
        copy.queryItems.append(contentsOf: items)
        return copy
    }
}
