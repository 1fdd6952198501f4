import Foundation

extension DownloadQueueState {
    /// What the queue's retry decisions read from the world: the wall clock (for a `Retry-After`
    /// date) and a random number (for the backoff's jitter) — the system's, or a test's fixed ones.
    struct Readings: Sendable {
        /// The wall clock now.
        var date: @Sendable () -> Date
        /// A random number in `0..<1`.
        var jitter: @Sendable () -> Double

        /// The system's wall clock and random source.
        static let system = Readings(date: { Date() }, jitter: { Double.random(in: 0..<1) })

        /// Always `date` and `jitter`.
        static func fixed(date: Date, jitter: Double) -> Readings {
            Readings(date: { date }, jitter: { jitter })
        }
    }
}
