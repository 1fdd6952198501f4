import HTTPTypes
import Instrumentation

/// Writes an instrument's propagation headers (W3C `traceparent` and `tracestate`, B3, baggage…)
/// into a request's header fields, replacing any field of the same name so a retried attempt does
/// not carry the previous attempt's value twice.
public struct HTTPFieldsInjector: Injector {
    /// Creates an injector.
    public init() {}

    /// Sets the field named `key` to `value`; a key that is not a valid field name is skipped.
    public func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        carrier[name] = value
    }
}
