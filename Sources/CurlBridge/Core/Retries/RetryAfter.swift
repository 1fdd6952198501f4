import Foundation

/// The wait a `Retry-After` header asks for (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date.
enum RetryAfter {
    /// The wait `value` asks for, measured from `now`; zero for a date in the past, `nil` when
    /// the value is neither form.
    static func delay(from value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // A number too large for Int is a wait longer than any cap.
            return .seconds(Int64(text) ?? Int64.max)
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .milliseconds(Int64((seconds * 1000).rounded(.up))) : .zero
    }

    /// An HTTP-date in any of its three forms: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the
    /// obsolete RFC 850 form and asctime's.
    private static func httpDate(_ text: String) -> Date? {
        for format in formats {
            if let date = formatter(format).date(from: text) { return date }
        }
        return nil
    }

    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]

    /// A fresh formatter each time: formatters are not `Sendable`, and a `Retry-After` date is
    /// parsed at most once per retry.
    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }
}
