import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate every sender must use, and the obsolete RFC 850
/// and asctime forms a recipient must accept. Parsed and formatted by hand: a `DateFormatter`
/// costs more than the rest of a cache lookup.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

    /// The date `text` names, in any of the three forms; `nil` when it is not an HTTP date.
    static func parse(_ text: some StringProtocol) -> Date? {
        // Single spaces only: a recipient need not repair `Thu, 18  Aug  2050` (RFC 9110 §5.6.7).
        var words = text.split(separator: " ", omittingEmptySubsequences: false)
        if words.count == 6, words[0].count == 3, words[2].isEmpty, words[3].count == 1 {
            words.remove(at: 2)  // asctime pads a one-digit day with a space: `Nov  6`
        }
        guard !words.contains(where: \.isEmpty) else { return nil }
        if words.count == 6, words[0].count == 4, words[0].last == ",", words[5].lowercased() == "gmt" {
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            guard words[1].count == 2, let day = Int(words[1]), let month = month(words[2]), words[3].count == 4,
                  let year = Int(words[3]) else { return nil }
            return date(year: year, month: month, day: day, time: words[4])
        }
        if words.count == 4, words[0].last == ",", words[3].lowercased() == "gmt" {
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-")
            guard parts.count == 3, parts[0].count == 2, let day = Int(parts[0]), let month = month(parts[1]),
                  parts[2].count == 2, let short = Int(parts[2]) else { return nil }
            return date(year: short < 70 ? 2000 + short : 1900 + short, month: month, day: day, time: words[2])
        }
        if words.count == 5, words[0].count == 3 {
            // asctime: Sun Nov  6 08:49:37 1994
            guard let month = month(words[1]), let day = Int(words[2]), words[4].count == 4, let year = Int(words[4]) else {
                return nil
            }
            return date(year: year, month: month, day: day, time: words[3])
        }
        return nil
    }

    /// `date` as an IMF-fixdate, the form to send.
    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = dayNames[((days % 7) + 7) % 7]
        return "\(weekday), \(two(day)) \(monthNames[month - 1]) \(year) \(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60)) GMT"
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }

    private static func month(_ word: some StringProtocol) -> Int? {
        months.firstIndex(of: word.lowercased()).map { $0 + 1 }
    }

    /// The moment of a calendar day and an `hh:mm:ss` time, UTC.
    private static func date(year: Int, month: Int, day: Int, time: some StringProtocol) -> Date? {
        let parts = time.split(separator: ":")
        guard parts.count == 3, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2]),
              (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = self.days(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
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
