import Foundation
import FuzzSupport
@testable import CurlBridge

/// HTTP dates (RFC 9110 §5.6.7): `HTTPDate.parse` on fuzzed text (IMF-fixdate, RFC 850 and
/// asctime, and near misses of each) and `HTTPDate.format` on a fuzzed instant (any `Double`:
/// decimal text, or eight bytes as its bits, NaN and the infinities included).
///
/// Invariants: nothing traps. A parsed date is a whole second of the years 0000–9999 and formats
/// to an IMF-fixdate that parses back to it, as do its asctime form and, for the years 1970–2069
/// the two-digit year names, its RFC 850 form. `format` always writes an IMF-fixdate; for an
/// instant of the years 0000–9999 one that parses back to its second, with the weekday, date and
/// time Foundation's Gregorian calendar gives (from 1583, where that calendar is Gregorian);
/// outside those years (and for NaN) the nearest instant it can write, the first or last second
/// of that range.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPDate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let text = input.string()
    if let date = HTTPDate.parse(text) {
        checkParsed(date, from: text)
    }
    checkFormatted(input.double())
    return 0
}

/// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the instants an IMF-fixdate's four-digit year can write.
private let earliest: TimeInterval = -62_167_219_200
private let latest: TimeInterval = 253_402_300_799
/// 1583-01-01T00:00:00Z: from here on Foundation's Gregorian calendar is the proleptic one HTTP uses.
private let gregorianOracleStart: TimeInterval = -12_212_553_600

private func checkParsed(_ date: Date, from text: String) {
    let seconds = date.timeIntervalSince1970
    require(seconds == seconds.rounded(.down) && (earliest...latest).contains(seconds),
            "\(text.debugDescription) parsed to \(seconds), not a whole second of the years 0000-9999")
    let formatted = HTTPDate.format(date)
    require(HTTPDate.parse(formatted) == date, "\(text.debugDescription) parsed to \(seconds), formatted as \(formatted), which parses to \(String(describing: HTTPDate.parse(formatted)))")
    guard let parts = IMFFixdate(formatted) else {
        require(false, "\(text.debugDescription) parsed to \(seconds), formatted as \(formatted.debugDescription), not an IMF-fixdate")
        return
    }
    checkFormatted(seconds)
    let time = "\(parts.hour):\(parts.minute):\(parts.second)"
    let day = parts.day.hasPrefix("0") ? " " + parts.day.dropFirst() : parts.day
    let asctime = "\(parts.weekday) \(parts.month) \(day) \(time) \(parts.year)"
    require(HTTPDate.parse(asctime) == date, "the asctime form \(asctime.debugDescription) of \(formatted) parses to \(String(describing: HTTPDate.parse(asctime)))")
    if let year = Int(parts.year), (1970...2069).contains(year) {
        let weekday = ["Mon": "Monday", "Tue": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday", "Fri": "Friday", "Sat": "Saturday", "Sun": "Sunday"][parts.weekday]!
        let rfc850 = "\(weekday), \(parts.day)-\(parts.month)-\(parts.year.suffix(2)) \(time) GMT"
        require(HTTPDate.parse(rfc850) == date, "the RFC 850 form \(rfc850.debugDescription) of \(formatted) parses to \(String(describing: HTTPDate.parse(rfc850)))")
    }
}

private func checkFormatted(_ value: Double) {
    // The instant as a Date holds it (a Date counts from 2001: 1e-300 after 1970 is 1970).
    let instant = Date(timeIntervalSince1970: value).timeIntervalSince1970
    let formatted = HTTPDate.format(Date(timeIntervalSince1970: instant))
    guard let parts = IMFFixdate(formatted) else {
        require(false, "\(instant) formatted as \(formatted.debugDescription), not an IMF-fixdate")
        return
    }
    guard instant >= earliest, instant < latest + 1 else {
        // NaN included: written as the first second.
        let nearest = instant > latest ? latest : earliest
        let expected = HTTPDate.format(Date(timeIntervalSince1970: nearest))
        require(formatted == expected, "\(instant), outside the years 0000-9999, formatted as \(formatted), not \(expected)")
        return
    }
    let second = instant.rounded(.down)
    require(HTTPDate.parse(formatted) == Date(timeIntervalSince1970: second),
            "\(instant) formatted as \(formatted), which parses to \(String(describing: HTTPDate.parse(formatted))), not \(second)")
    guard second >= gregorianOracleStart else { return }
    let components = gregorian.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: Date(timeIntervalSince1970: second))
    let expected = [
        weekdayNames[components.weekday! - 1], monthNames[components.month! - 1], String(components.year!), String(components.day!),
        String(components.hour!), String(components.minute!), String(components.second!),
    ]
    let written = [parts.weekday, parts.month, String(Int(parts.year)!), String(Int(parts.day)!), String(Int(parts.hour)!),
                   String(Int(parts.minute)!), String(Int(parts.second)!)]
    require(written == expected, "\(instant) formatted as \(formatted); Foundation's calendar says \(expected)")
}

private let gregorian: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
}()
private let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
private let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

/// The parts of an IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`, checked character by character
/// against RFC 9110's grammar (names, two- and four-digit numbers in their ranges).
private struct IMFFixdate {
    let weekday: String, day: String, month: String, year: String, hour: String, minute: String, second: String

    init?(_ text: String) {
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard words.count == 6, words[0].count == 4, words[0].hasSuffix(","), weekdayNames.contains(String(words[0].prefix(3))),
              monthNames.contains(words[2]), words[5] == "GMT" else { return nil }
        let time = words[4].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func digits(_ text: String, _ count: Int, _ range: ClosedRange<Int>) -> Bool {
            text.count == count && text.utf8.allSatisfy { (0x30...0x39).contains($0) } && range.contains(Int(text)!)
        }
        guard digits(words[1], 2, 1...31), digits(words[3], 4, 0...9999), time.count == 3, digits(time[0], 2, 0...23),
              digits(time[1], 2, 0...59), digits(time[2], 2, 0...59) else { return nil }
        (weekday, day, month, year, hour, minute, second) = (String(words[0].prefix(3)), words[1], words[2], words[3], time[0], time[1], time[2])
    }
}
