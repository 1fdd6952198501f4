import Dispatch
import Foundation
import Synchronization

/// A fixed set of threads that run blocking calls, so a storm does not start a thread per request.
final class WorkerPool: Sendable {
    /// Jobs not yet taken; `nil` tells one thread to exit.
    private let jobs = Mutex<[(@Sendable () -> Void)?]>([])
    private let available = DispatchSemaphore(value: 0)
    private let exited = DispatchGroup()
    private let size: Int

    /// Starts `threads` threads.
    init(threads: Int) {
        size = threads
        for _ in 0..<threads {
            exited.enter()
            Thread.detachNewThread { [self] in
                while true {
                    available.wait()
                    guard let job = jobs.withLock({ $0.removeFirst() }) else { break }
                    job()
                }
                exited.leave()
            }
        }
    }

    /// Runs `job` on one of the threads.
    func run(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    /// Lets every thread finish its jobs and exit, and waits for them.
    func stop() {
        jobs.withLock { $0.append(contentsOf: Array(repeating: nil, count: size)) }
        for _ in 0..<size { available.signal() }
        exited.wait()
    }
}

/// Suspends a task until ``fire()`` is called or the task is cancelled, whichever comes first.
final class Wake: Sendable {
    private struct State {
        var isFired = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Ends the wait (now, or at once when it begins).
    func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.isFired = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Waits for ``fire()`` or the task's cancellation.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isFired = state.withLock { state -> Bool in
                    if !state.isFired { state.waiter = continuation }
                    return state.isFired
                }
                if isFired { continuation.resume() }
            }
        } onCancel: {
            fire()
        }
    }
}
