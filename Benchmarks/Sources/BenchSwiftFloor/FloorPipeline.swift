import BenchSupport
import CBenchSwiftFloor
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

    /// The kept floor's first request (each request's URL is checked again), `nil` for the floor.
    private let kept: KeptRequest?

    init(
        loop: FloorLoop, requests: Int, kept: KeptRequest?,
        complete: @escaping @Sendable (Result<FloorResponse, FloorError>, UInt64) -> Void
    ) {
        self.loop = loop
        self.kept = kept
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
        let completion: @Sendable (Result<FloorResponse, FloorError>) -> Void = { result in
            self.completions.async {
                self.complete(result, start)
                self.startNext()
                if self.finished.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == self.dispenser.total {
                    self.done.signal()
                }
            }
        }
        guard let kept else { return loop.submit(FloorTransfer(completion: completion)) }
        // A callback caller would keep the transfer as its handle to `FloorLoop.cancel` it with,
        // as a CurlBridge callback request returns one; this one makes no use of it.
        guard let request = kept.again() else {
            return completion(.failure(FloorError(code: Int(CURLE_URL_MALFORMAT.rawValue))))
        }
        loop.submit(FloorTransfer(kept: request, completion: completion))
    }
}
