/// The queue's sums of byte counts (file sizes, lengths a server announced, which may be
/// anything): held at `Int64.max` (or `.min`) instead of trapping.
enum ByteCount {
    /// `a + b`, saturated.
    static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? .max : .min
    }
}
