import Foundation

/// The text of the progress bar: percentage, bytes, rate and time left, for example
/// `[2/5]  42.0%  1.1 MiB / 2.6 MiB  850.3 KiB/s  ETA 0:02`.
struct ProgressLine: Equatable {
    /// Bytes received so far, by all transfers.
    var received: Int64
    /// Bytes expected in all, when every transfer announced its length.
    var expected: Int64?
    /// Bytes per second since the transfers started.
    var rate: Double
    /// Transfers finished, and in all; the count is shown only with several transfers.
    var finished: Int
    var count: Int
    /// Whether everything is finished: "done" instead of the time left.
    var isDone: Bool

    var text: String {
        var words: [String] = []
        if count > 1 { words.append("[\(finished)/\(count)]") }
        if let expected, expected > 0 {
            let percent = Double(min(received, expected)) * 100 / Double(expected)
            words.append(String(format: "%5.1f%%", percent))
            words.append("\(ByteCount(received)) / \(ByteCount(expected))")
        } else {
            words.append(ByteCount(received).description)
        }
        words.append("\(ByteCount(Int64(rate)))/s")
        if isDone {
            words.append("done")
        } else if let expected, rate > 0 {
            words.append("ETA " + Self.clock(seconds: Double(max(0, expected - received)) / rate))
        }
        return words.joined(separator: "  ")
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func clock(seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        let tail = (rest < 10 ? "0" : "") + String(rest)
        guard hours > 0 else { return "\(minutes):\(tail)" }
        return "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes):\(tail)"
    }
}
