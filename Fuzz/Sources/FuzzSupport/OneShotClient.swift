import CurlBridge
import Foundation

/// A `CallbackClient` used synchronously from the fuzzer's thread, counting completions so that a
/// request completed twice (or never) stops the run.
public final class OneShotClient: @unchecked Sendable {
    private let client: CallbackClient
    private let queue = DispatchQueue(label: "fuzz.completions")
    private let lock = NSLock()
    // Guarded by `lock`.
    private var sent = 0
    private var completed = 0

    /// A client over a transport of its own made with `configuration`.
    public init(configuration: Configuration) {
        client = CallbackClient(transport: Transport(configuration: configuration))
    }

    /// Sends `request` and waits for its outcome; stops the run if any request so far completed
    /// more than once.
    public func send(_ request: Request) -> Result<Response, RequestError> {
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        lock.withLock { sent += 1 }
        client.send(request, queue: queue) { [self] result in
            lock.withLock { completed += 1 }
            outcome.value = result
            done.signal()
        }
        done.wait()
        let counts = lock.withLock { (sent, completed) }
        require(counts.0 == counts.1, "\(counts.0) requests sent, \(counts.1) completions")
        return outcome.value!
    }
}

/// The outcome handed from the completion queue to the waiting thread (the semaphore orders them).
private final class OutcomeBox: @unchecked Sendable {
    var value: Result<Response, RequestError>?
}
