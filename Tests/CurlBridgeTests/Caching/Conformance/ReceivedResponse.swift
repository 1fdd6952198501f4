import CurlBridge
import Foundation

/// A response as the suite's client reads it through Fetch: a status, headers looked up by name
/// with repeated fields joined by ", ", and the body as text.
struct ReceivedResponse {
    let status: Int
    /// The header fields, names lowercased.
    let headers: [(name: String, value: String)]
    let body: String
    /// How the cache produced it; `nil` for ``gatewayError``. Only for the reader of a failure:
    /// the checks go by the origin's request numbers, as the suite's do.
    let cacheStatus: CacheStatus?

    init(_ response: Response) {
        status = response.status.code
        headers = response.headerFields.map { ($0.name.canonicalName, $0.value) }
        body = String(decoding: response.body, as: UTF8.self)
        cacheStatus = response.cacheStatus
    }

    private init(status: Int) {
        self.status = status
        headers = []
        body = ""
        cacheStatus = nil
    }

    /// What stands for the answer when the origin closed the connection and the cache had none
    /// to give: the `502` a proxy cache would send, with no header and no body. (The suite's
    /// client, behind a proxy, gets that `502`; here the cache is in the client, whose request
    /// fails instead.)
    static let gatewayError = ReceivedResponse(status: 502)

    /// Every value of the header `name`, joined with ", "; `nil` when there is none.
    func value(of name: String) -> String? {
        let lowercasedName = name.lowercased()
        let values = headers.filter { $0.name == lowercasedName }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The origin's `Server-Now` (milliseconds since 1970) on the response.
    var serverNow: Int64? {
        value(of: "Server-Now").flatMap { Int64($0) }
    }

    /// The origin's `Server-Request-Count`: which request to the origin produced the response.
    var serverRequestCount: Int? {
        value(of: "Server-Request-Count").flatMap { leadingInteger($0) }
    }
}

/// The integer at the start of `text`, as JavaScript's `parseInt` reads it (`"12abc"` is 12);
/// `nil` when there is none.
func leadingInteger(_ text: String) -> Int? {
    let trimmed = text.drop { $0.isWhitespace }
    let sign = trimmed.first == "-" || trimmed.first == "+" ? String(trimmed.prefix(1)) : ""
    let digits = trimmed.dropFirst(sign.count).prefix { $0.isASCII && $0.isNumber }
    return Int(sign + digits)
}
