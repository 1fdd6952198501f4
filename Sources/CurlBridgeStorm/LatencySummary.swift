/// Percentiles of a set of durations, in milliseconds.
struct LatencySummary: CustomStringConvertible {
    let count: Int
    let p50: Double
    let p99: Double
    let max: Double

    /// Summarises `nanoseconds` (nearest-rank percentiles); all zero when empty.
    init(nanoseconds: [UInt64]) {
        let sorted = nanoseconds.sorted()
        count = sorted.count
        func rank(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = Swift.min(sorted.count - 1, Swift.max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
            return Double(sorted[index]) / 1e6
        }
        p50 = rank(0.50)
        p99 = rank(0.99)
        max = rank(1.0)
    }

    var description: String {
        "p50ms=\(Self.format(p50)) p99ms=\(Self.format(p99)) maxms=\(Self.format(max))"
    }

    /// `value` with three decimals.
    static func format(_ value: Double) -> String {
        String(Double((value * 1000).rounded()) / 1000)
    }
}
