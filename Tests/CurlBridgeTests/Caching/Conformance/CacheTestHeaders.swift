import Foundation

/// A header value as the suite writes it.
enum HeaderValue: Decodable, Sendable, Equatable {
    /// Sent as it is.
    case text(String)
    /// In a date header (`Date`, `Expires`, `Last-Modified`, `If-Modified-Since`,
    /// `If-Unmodified-Since`): that many seconds from the response's `Server-Now`, as an HTTP-date.
    /// Elsewhere the number is sent as it is.
    case number(Int)

    /// The value as sent where no magic applies: the text, or the number written out.
    var literal: String {
        switch self {
        case .text(let text): text
        case .number(let number): String(number)
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else {
            self = .text(try container.decode(String.self))
        }
    }
}

/// A header field the client sends or the origin answers with: `[name, value]`, or for the origin
/// `[name, value, checked]`.
struct HeaderTemplate: Decodable, Sendable {
    let name: String
    let value: HeaderValue
    /// Whether the client checks that the response carries the origin's value (a third member
    /// `false` says not); only meaningful for response headers.
    let isChecked: Bool

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        name = try container.decode(String.self)
        value = try container.decode(HeaderValue.self)
        isChecked = container.isAtEnd ? true : try container.decode(Bool.self)
    }
}

/// One entry of `expected_request_headers` or `expected_request_headers_missing`, checked on the
/// request the origin received.
enum RequestHeaderExpectation: Decodable, Sendable {
    /// A name alone: the header is present (or, in the missing list, absent).
    case named(String)
    /// `[name, value]`: the header has that value (or, in the missing list, has not).
    case valued(String, String)

    init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            self = .named(name)
            return
        }
        var container = try decoder.unkeyedContainer()
        self = .valued(try container.decode(String.self), try container.decode(String.self))
    }
}

/// One entry of `expected_response_headers`, checked on the response the client received.
enum ResponseHeaderExpectation: Decodable, Sendable {
    /// A name alone: the header is present.
    case present(String)
    /// `[name, value]`: the header has the value (a number in a date header is an offset from
    /// the response's `Server-Now`; see ``HeaderValue``).
    case equals(String, HeaderValue)
    /// `[name, "=", other]`: the header has the value of another header of the response.
    case sameAs(String, String)
    /// `[name, ">", number]`: the header's value, as an integer, is bigger than the number.
    case greaterThan(String, Int)

    /// The name of the header the expectation is about.
    var name: String {
        switch self {
        case .present(let name), .equals(let name, _), .sameAs(let name, _), .greaterThan(let name, _): name
        }
    }

    init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            self = .present(name)
            return
        }
        var container = try decoder.unkeyedContainer()
        let name = try container.decode(String.self)
        let second = try container.decode(HeaderValue.self)
        guard !container.isAtEnd else {
            self = .equals(name, second)
            return
        }
        switch second {
        case .text("="): self = .sameAs(name, try container.decode(String.self))
        case .text(">"): self = .greaterThan(name, try container.decode(Int.self))
        default:
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "unknown expected-header operator \(second) for \(name)")
        }
    }
}

/// One entry of `expected_response_headers_missing`.
enum MissingResponseHeader: Decodable, Sendable {
    /// A name alone: the response has no such header.
    case absent(String)
    /// `[name, value]`: the response has no such header, or its value does not contain `value`.
    case notContaining(String, String)

    init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            self = .absent(name)
            return
        }
        var container = try decoder.unkeyedContainer()
        self = .notContaining(try container.decode(String.self), try container.decode(String.self))
    }
}
