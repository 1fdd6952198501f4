import BenchSupport
import CurlBridge
import Dispatch
import Synchronization

/// Keeps `--concurrency` requests in flight through a ``CallbackClient``, the way callback code
/// does: each completion handler records its result and starts the next request.
final class CallbackPipeline: Sendable {
    private let client: CallbackClient
    private let request: @Sendable (Int) -> Request
    private let run: BenchRun
    private let dispenser: IndexDispenser
    private let finished = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    /// A pipeline sending `request(index)` for each index of the run.
    init(client: CallbackClient, request: @escaping @Sendable (Int) -> Request, run: BenchRun) {
        self.client = client
        self.request = request
        self.run = run
        dispenser = IndexDispenser(total: run.arguments.requests)
    }

    /// Starts the first `--concurrency` requests and waits until every request has completed.
    func runToCompletion() {
        for _ in 0..<run.arguments.concurrency { startNext() }
        done.wait()
    }

    private func startNext() {
        guard let index = dispenser.take() else { return }
        let start = monotonicNanoseconds()
        client.send(request(index)) { result in
            CurlBridgeSetup.complete(result, since: start, in: self.run)
            self.startNext()
            if self.finished.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == self.dispenser.total {
                self.done.signal()
            }
        }
    }
}
