import CurlBridge
import Foundation
import Synchronization

/// A one-line progress bar on stderr for the downloads of one run, redrawn in place with a
/// carriage return: bytes, percentage, rate and time left, over all transfers together.
///
/// Made only when stderr is a terminal, so a pipe or a log file never receives bar bytes.
/// Progress arrives on the transports' queues, hence the lock; redraws are at most ten a second,
/// and the last one, in ``finish()``, shows the final totals.
final class ProgressBar: Sendable {
    private struct State {
        /// The latest report of each transfer, by its position on the command line.
        var reports: [Int: TransferProgress] = [:]
        /// Bytes each transfer already had when it started (a resumed download's partial file),
        /// left out of the rate.
        var baselines: [Int: Int64] = [:]
        var finished = 0
        var lastDraw: ContinuousClock.Instant?
        var isShown = false
    }

    private let count: Int
    private let started = ContinuousClock.now
    private let state = Mutex(State())
    private static let redrawInterval: Duration = .milliseconds(100)

    /// A bar for `count` transfers, or `nil` when stderr is not a terminal.
    init?(transfers count: Int) {
        guard StandardStream.error.isTerminal else { return nil }
        self.count = count
    }

    /// Records a report of transfer `index` and redraws, unless it did a moment ago.
    func update(_ index: Int, _ progress: TransferProgress) {
        state.withLock { state in
            if state.baselines[index] == nil { state.baselines[index] = progress.bytesReceived }
            state.reports[index] = progress
            let now = ContinuousClock.now
            if let last = state.lastDraw, now - last < Self.redrawInterval { return }
            draw(&state, at: now, isDone: false)
        }
    }

    /// Counts transfer `index` as finished, and redraws.
    func complete(_ index: Int) {
        state.withLock { state in
            state.finished += 1
            draw(&state, at: .now, isDone: false)
        }
    }

    /// Draws the final totals and ends the line.
    func finish() {
        state.withLock { state in
            guard !state.reports.isEmpty else { return }
            draw(&state, at: .now, isDone: true)
            StandardStream.error.write("\n")
            state.isShown = false
        }
    }

    /// Writes `text` (whole lines) to stderr above the bar, which is drawn again below it.
    func printAbove(_ text: String) {
        state.withLock { state in
            guard state.isShown else {
                StandardStream.error.write(text)
                return
            }
            StandardStream.error.write("\r\u{1B}[K" + text)
            draw(&state, at: .now, isDone: false)
        }
    }

    private func draw(_ state: inout State, at now: ContinuousClock.Instant, isDone: Bool) {
        guard !state.reports.isEmpty else { return }
        let received = state.reports.values.reduce(0) { $0 + $1.bytesReceived }
        let expectations = state.reports.values.map(\.expectedBytesToReceive)
        let expected = expectations.contains(nil) ? nil : expectations.reduce(0) { $0 + ($1 ?? 0) }
        let seconds = Double((now - started).components.attoseconds) / 1e18 + Double((now - started).components.seconds)
        let fresh = received - state.baselines.values.reduce(0, +)
        let line = ProgressLine(
            received: received, expected: expected, rate: seconds > 0 ? Double(fresh) / seconds : 0,
            finished: state.finished, count: count, isDone: isDone)
        StandardStream.error.write("\r" + line.text + "\u{1B}[K")
        state.lastDraw = now
        state.isShown = true
    }
}
