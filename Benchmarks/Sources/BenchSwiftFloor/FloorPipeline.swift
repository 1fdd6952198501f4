import BenchSupport
import Dispatch
import Synchronization

/// Keeps requests in flight the way callback code does (bench-curlbridge's `CallbackPipeline`):
/// each completion runs on a serial queue, records its result and starts the next request.
final class FloorPipeline: Sendable {
    private let loop: FloorLoop
    private let dispenser: IndexDispenser
    private let complete: @Sendable (Result<FloorResponse, FloorError>, UInt64) -> Void
    private let completions = DispatchQueue(label: "swift-floor.completions")
    private let finished = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    init(loop: FloorLoop, requests: Int, complete: @escaping @Sendable (Result<FloorResponse, FloorError>, UInt64) -> Void) {
        self.loop = loop
        dispenser = IndexDispenser(total: requests)
        self.complete = complete
    }

    /// Starts `concurrency` requests and waits until every request has completed.
    func runToCompletion(concurrency: Int) {
        for _ in 0..<concurrency { startNext() }
        done.wait()
    }

    private func startNext() {
        guard dispenser.take() != nil else { return }
        let start = monotonicNanoseconds()
        loop.submit(FloorTransfer { result in
            self.completions.async {
                self.complete(result, start)
                self.startNext()
                if self.finished.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == self.dispenser.total {
                    self.done.signal()
                }
            }
        })
    }
}
