import Foundation
import Synchronization

/// Keeps the output of several transfers in command-line order, as if they had run one after
/// another, while they run in parallel: the earliest unfinished transfer writes straight
/// through; later ones are held until every transfer before them has finished.
///
/// Stderr text goes above the progress bar, when there is one.
final class OrderedOutput: Sendable {
    private enum Chunk {
        case output(Data)
        case error(String)
    }

    private struct State {
        /// The transfer writing straight through.
        var current = 0
        var held: [Int: [Chunk]] = [:]
        var finished: Set<Int> = []
        /// Whether a write to stdout failed (a closed pipe): the run exits ``ExitStatus/fileError``.
        var outputFailed = false
    }

    private let bar: ProgressBar?
    private let state = Mutex(State())

    init(bar: ProgressBar?) {
        self.bar = bar
    }

    /// Whether a write to stdout failed.
    var outputFailed: Bool { state.withLock { $0.outputFailed } }

    /// Writes `data` to stdout for transfer `index`.
    func output(_ data: Data, from index: Int) { write(.output(data), from: index) }

    /// Writes `text` to stderr for transfer `index`.
    func error(_ text: String, from index: Int) { write(.error(text), from: index) }

    /// Marks transfer `index` finished, releasing what the transfers after it held.
    func finish(_ index: Int) {
        state.withLock { state in
            state.finished.insert(index)
            while state.finished.contains(state.current) {
                state.current += 1
                for chunk in state.held.removeValue(forKey: state.current) ?? [] { emit(chunk, &state) }
            }
        }
    }

    private func write(_ chunk: Chunk, from index: Int) {
        state.withLock { state in
            if index == state.current { emit(chunk, &state) } else { state.held[index, default: []].append(chunk) }
        }
    }

    private func emit(_ chunk: Chunk, _ state: inout State) {
        switch chunk {
        case .output(let data):
            if !StandardStream.output.write(data) { state.outputFailed = true }
        case .error(let text):
            if let bar { bar.printAbove(text) } else { StandardStream.error.write(text) }
        }
    }
}
