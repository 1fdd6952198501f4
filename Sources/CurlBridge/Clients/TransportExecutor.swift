import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A transport's loop as a task executor: tasks that prefer it run their code on the thread that
/// drives curl, between the loop's turns, so that awaiting a response costs no thread hand-off.
///
/// By default a task that awaits ``AsyncClient/send(_:progress:)`` is resumed on Swift's global
/// executor: the loop's thread finishes the transfer, then another thread wakes up to run the
/// task. Two such hand-offs per request are what hold a sequential async caller below raw
/// libcurl's speed, whatever the client does (`Benchmarks/INSTRUCTIONS.md`). A task that prefers
/// the transport's executor is resumed on the loop itself, as NIO runs a channel's handlers on its
/// event loop:
///
/// ```swift
/// let client = AsyncClient(transport: transport)
/// try await withTaskExecutorPreference(transport.executor) {
///     for id in ids {
///         let response = try await client.send(.get("items/\(id)"))
///         try store(response.body)
///     }
/// }
/// // or: Task(executorPreference: transport.executor) { … }
/// ```
///
/// Code running there runs on the loop: while it runs, no transfer of the transport moves. Keep it
/// short, and never wait there for anything the transport must do (a `DispatchSemaphore`, a
/// ``DownloadQueue/waitForAll()``): that waits for ever. Hand long work to another executor.
/// Actors keep their own executors; only nonisolated code follows the preference.
///
/// Jobs run in the order they arrive, after the work submitted before them. Once the transport has
/// shut down (or if curl could not give it a loop), jobs run on the transport's serial queue, so a
/// task that prefers this executor always runs to its end.
///
/// Nothing is stored or shared: a job is held only until the loop's next turn runs it.
public final class TransportExecutor: TaskExecutor, Sendable {
    /// The loop that runs jobs; `nil` when curl gave the transport none.
    private let loop: CurlMultiLoop?
    /// Where jobs run when the loop no longer accepts work: the loop's queue, which no turn
    /// holds any more, or a queue of its own.
    private let fallback: DispatchQueue

    init(loop: CurlMultiLoop?) {
        self.loop = loop
        fallback = loop?.queue ?? DispatchQueue(label: "CurlBridge.TransportExecutor")
    }

    /// Runs `job` on the transport's loop, between its turns.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let run: @Sendable () -> Void = {
            // Marked for the blocking guard: the loop's owner may be a blocking caller's thread,
            // which no queue key names.
            pthread_setspecific(Self.runningJobKey, UnsafeRawPointer(bitPattern: 1))  // any non-null pointer
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            pthread_setspecific(Self.runningJobKey, nil)
        }
        if let loop, loop.submit(isNewRequest: false, run) { return }
        fallback.async(execute: run)
    }

    /// Whether the calling thread is running a job of a transport's executor, where waiting for a
    /// transfer would deadlock.
    static var isRunningJob: Bool {
        pthread_getspecific(runningJobKey) != nil
    }

    /// The thread-specific slot that marks a thread running a job.
    private static let runningJobKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()
}
