extension Int64 {
    /// `self + other`, held at `Int64.max` (or `.min`) instead of trapping: for byte counts a
    /// server or a file announced, which may be anything.
    func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
