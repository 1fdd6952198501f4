import Foundation

/// The `name=value` pairs of a query string, percent-decoded (`+` decodes to a space, as in HTML
/// forms), in their original order. Repeated names are kept.
struct QueryParameters {
    /// The decoded pairs in order.
    let pairs: [(name: String, value: String)]

    /// Splits `rawQuery` on `&` and each piece on its first `=`; empty pieces are skipped and a
    /// piece without `=` has an empty value.
    init(rawQuery: String) {
        self.pairs = rawQuery.split(separator: "&").map { piece in
            let name = piece.prefix { $0 != "=" }
            let value = piece.dropFirst(name.count + 1)
            return (Self.decode(name), Self.decode(value))
        }
    }

    /// The value of the first pair called `name`, or `nil`.
    subscript(name: String) -> String? {
        self.pairs.first { $0.name == name }?.value
    }

    private static func decode(_ component: Substring) -> String {
        let spaced = component.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
