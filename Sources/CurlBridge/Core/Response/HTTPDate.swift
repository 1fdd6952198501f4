#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate every sender must use, and the obsolete RFC 850
/// and asctime forms a recipient must accept. Parsed and formatted by hand: a `DateFormatter`
/// costs more than the rest of a cache lookup.
///
/// Their years have four digits: an HTTP date is a second from 0000-01-01T00:00:00Z to
/// 9999-12-31T23:59:59Z (``earliest`` to ``latest``).
enum HTTPDate {
    /// The first second an HTTP date can name, 0000-01-01T00:00:00Z.
    static let earliest = Date(timeIntervalSince1970: -62_167_219_200)
    /// The last second an HTTP date can name, 9999-12-31T23:59:59Z.
    static let latest = Date(timeIntervalSince1970: 253_402_300_799)

    private static let months: [StaticString] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

    /// A run of the date's bytes: the date is read as UTF-8 bytes, never as `Character`s, which
    /// cost a cache lookup more than the rest of its decision. Every form is printable ASCII, so
    /// any other byte (in a day name too) makes the text no HTTP date.
    private typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    /// The date `text` names, in any of the three forms; `nil` when it is not an HTTP date (its
    /// numbers are digits only, without a sign, and it names a second up to ``latest``).
    static func parse(_ text: some StringProtocol) -> Date? {
        var text = String(text)
        return text.withUTF8 { parse($0[...]) }
    }

    private static func parse(_ text: Bytes) -> Date? {
        guard text.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        // Single spaces only: a recipient need not repair `Thu, 18  Aug  2050` (RFC 9110 §5.6.7).
        var words = text.split(separator: UInt8(ascii: " "), maxSplits: 6, omittingEmptySubsequences: false)
        if words.count == 6, words[0].count == 3, words[2].isEmpty, words[3].count == 1 {
            words.remove(at: 2)  // asctime pads a one-digit day with a space: `Nov  6`
        }
        guard !words.contains(where: \.isEmpty) else { return nil }
        if words.count == 6, words[0].count == 4, words[0].last == UInt8(ascii: ","), isGMT(words[5]) {
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            guard let day = number(words[1], digits: 2...2), let month = month(words[2]),
                  let year = number(words[3], digits: 4...4) else { return nil }
            return date(year: year, month: month, day: day, time: words[4])
        }
        if words.count == 4, words[0].last == UInt8(ascii: ","), isGMT(words[3]) {
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: UInt8(ascii: "-"))
            guard parts.count == 3, let day = number(parts[0], digits: 2...2), let month = month(parts[1]),
                  let short = number(parts[2], digits: 2...2) else { return nil }
            return date(year: short < 70 ? 2000 + short : 1900 + short, month: month, day: day, time: words[2])
        }
        if words.count == 5, words[0].count == 3 {
            // asctime: Sun Nov  6 08:49:37 1994
            guard let month = month(words[1]), let day = number(words[2], digits: 1...2),
                  let year = number(words[4], digits: 4...4) else {
                return nil
            }
            return date(year: year, month: month, day: day, time: words[3])
        }
        return nil
    }

    /// `date` as an IMF-fixdate, the form to send: its second (rounded down); a date before
    /// ``earliest`` or after ``latest``, which four digits cannot write, as that second (NaN as
    /// ``earliest``).
    static func format(_ date: Date) -> String {
        let time = date.timeIntervalSince1970
        let clamped = time.isNaN ? earliest.timeIntervalSince1970 : min(max(time, earliest.timeIntervalSince1970), latest.timeIntervalSince1970)
        let seconds = Int(clamped.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = dayNames[((days % 7) + 7) % 7]
        return "\(weekday), \(padded(day, 2)) \(monthNames[month - 1]) \(padded(year, 4)) "
            + "\(padded(inDay / 3600, 2)):\(padded(inDay / 60 % 60, 2)):\(padded(inDay % 60, 2)) GMT"
    }

    /// `value` (not negative) in at least `width` digits, zeros first.
    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The number `text` writes in decimal digits only, as many as `digits` allows.
    private static func number(_ text: Bytes, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.count) else { return nil }
        var value = 0
        for byte in text {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The month (1–12) a three-letter name in any case names.
    private static func month(_ word: Bytes) -> Int? {
        months.firstIndex { ASCIIBytes.equals(raw(word), $0) }.map { $0 + 1 }
    }

    /// Whether `word` is `GMT` in any case.
    private static func isGMT(_ word: Bytes) -> Bool {
        ASCIIBytes.equals(raw(word), "gmt")
    }

    /// `word`'s bytes, for ``ASCIIBytes``.
    private static func raw(_ word: Bytes) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: word))
    }

    /// The moment of a calendar day and an `hh:mm:ss` time, UTC.
    private static func date(year: Int, month: Int, day: Int, time: Bytes) -> Date? {
        let parts = time.split(separator: UInt8(ascii: ":"))
        guard parts.count == 3, let hour = number(parts[0], digits: 2...2), let minute = number(parts[1], digits: 2...2),
              let second = number(parts[2], digits: 2...2),
              (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = self.days(year: year, month: month, day: day)
        let date = Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
        // A leap second at the very end of 9999 is the first second of a year four digits cannot write.
        return date <= latest ? date : nil
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar day `days` after 1970-01-01 (`civil_from_days`).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
