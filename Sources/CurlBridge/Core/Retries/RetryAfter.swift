#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The wait a `Retry-After` header asks for (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date
/// (read by ``HTTPDate``, in any of its three forms).
enum RetryAfter {
    /// The wait `value` asks for, measured from `now`; zero for a date in the past, `nil` when
    /// the value is neither form.
    static func delay(from value: String, now: Date) -> Duration? {
        let text = value.trimmingWhitespace()
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // A number too large for Int is a wait longer than any cap.
            return .seconds(Int64(text) ?? Int64.max)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .milliseconds(Int64((seconds * 1000).rounded(.up))) : .zero
    }
}
