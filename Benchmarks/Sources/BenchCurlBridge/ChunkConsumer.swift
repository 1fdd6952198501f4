import BenchSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// What every streaming style does with a body chunk: writes it to the sink, counts it and, with
/// `--consume-rate`, says how long the consumer waits before taking the next one.
final class ChunkConsumer: Sendable {
    private struct State {
        var bytes = 0
        var pace: ConsumerPace?
    }

    private let run: BenchRun
    private let state: Mutex<State>

    init(run: BenchRun) {
        self.run = run
        state = Mutex(State(pace: run.arguments.consumeRate.map { ConsumerPace(bytesPerSecond: $0) }))
    }

    /// Writes and counts `chunk`; returns the nanoseconds to wait before the next chunk (0 when
    /// the consumer is not paced).
    func consume(_ chunk: Data) -> UInt64 {
        chunk.withUnsafeBytes { _ = run.sink.write($0) }
        return state.withLock { state in
            state.bytes += chunk.count
            return state.pace?.delay(afterConsuming: chunk.count) ?? 0
        }
    }

    /// Body bytes consumed so far.
    var bytes: Int { state.withLock { $0.bytes } }
}
