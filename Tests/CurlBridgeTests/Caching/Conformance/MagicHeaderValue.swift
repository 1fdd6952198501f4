import Foundation

/// The suite's "magic" header values made concrete, as test-engine/lib/header-fixup.mjs does:
/// numbers in date headers become HTTP-dates relative to a response's `Server-Now`, and
/// `Location` and `Content-Location` become relative to its `Server-Base-Url` when the request
/// asks for magic locations.
enum MagicHeaderValue {
    /// Header names whose integer values are offsets in seconds (lib/defines.mjs).
    static let dateHeaders: Set<String> = ["date", "expires", "last-modified", "if-modified-since", "if-unmodified-since"]
    /// Header names made relative to the request's URL under `magic_locations`.
    static let locationHeaders: Set<String> = ["location", "content-location"]

    /// The value to send or expect for the header `name` written as `value` in `request`.
    ///
    /// - Parameters:
    ///   - serverNow: The response's `Server-Now` (milliseconds since 1970); `nil` when it has
    ///     none, which makes a date "Invalid Date" as in JavaScript.
    ///   - serverBaseURL: The response's `Server-Base-Url`: the path and query the origin received.
    static func resolve(
        _ name: String, _ value: HeaderValue, serverNow: Int64?, serverBaseURL: String?, in request: CacheTestRequest
    ) -> String {
        let lowercasedName = name.lowercased()
        var text: String
        switch value {
        case .number(let offset) where dateHeaders.contains(lowercasedName):
            text = serverNow.map {
                httpDate(millisecondsSince1970: $0 + Int64(offset) * 1000, rfc850: request.rfc850DateHeaders.contains(lowercasedName))
            } ?? "Invalid Date"
        default:
            text = value.literal
        }
        if locationHeaders.contains(lowercasedName) && request.magicLocations {
            let base = serverBaseURL ?? ""
            text = text.isEmpty ? base : base + "/" + text
        }
        return text
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, JavaScript's `toGMTString()`), or with
    /// `rfc850` the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`).
    static func httpDate(millisecondsSince1970: Int64, rfc850: Bool = false) -> String {
        var seconds = time_t(millisecondsSince1970 / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let time = [parts.tm_hour, parts.tm_min, parts.tm_sec].map(twoDigits).joined(separator: ":")
        let month = months[Int(parts.tm_mon)]
        let year = Int(parts.tm_year) + 1900
        if rfc850 {
            return "\(longWeekdays[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday))-\(month)-\(twoDigits(Int32(year % 100))) \(time) GMT"
        }
        return "\(shortWeekdays[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(month) \(year) \(time) GMT"
    }

    private static let shortWeekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func twoDigits(_ number: Int32) -> String {
        number < 10 ? "0\(number)" : "\(number)"
    }
}
