import HTTPTypes

/// A response's header fields: as given, or as curl delivered them, parsed when first read
/// (``ResponseHeaderBlock``).
enum ResponseHeaderFields: Sendable, Equatable {
    case fields(HTTPFields)
    case block(ResponseHeaderBlock)

    /// The fields; setting them replaces the block.
    var fields: HTTPFields {
        get {
            switch self {
            case .fields(let fields): fields
            case .block(let block): block.fields
            }
        }
        set { self = .fields(newValue) }
    }

    /// Whether both hold the same fields.
    static func == (lhs: ResponseHeaderFields, rhs: ResponseHeaderFields) -> Bool {
        lhs.fields == rhs.fields
    }
}
