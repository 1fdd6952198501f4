import Dispatch

/// A transport's loop as a task executor: tasks that prefer it run their code on the transport's
/// serial queue, between the turns of the loop that drives curl, so that awaiting a response costs
/// no thread hand-off.
///
/// By default a task that awaits ``AsyncClient/send(_:progress:)`` is resumed on Swift's global
/// executor: the loop's thread finishes the transfer, then another thread wakes up to run the
/// task. Those hand-offs are what hold a sequential async caller below raw libcurl's speed, whatever
/// the client does (`Benchmarks/INSTRUCTIONS.md`). A task that prefers the transport's executor
/// is resumed by the loop itself, as NIO runs a channel's handlers on its event loop:
///
/// ```swift
/// let client = AsyncClient(transport: transport)
/// let users = try await withTaskExecutorPreference(transport.executor) {
///     var users: [User] = []
///     for id in ids {
///         users.append(try await client.send(.get("users/\(id)")).decode(User.self))
///     }
///     return users
/// }
/// // or: Task(executorPreference: transport.executor) { … }
/// ```
///
/// While a job runs on the loop, no transfer of the transport moves. Keep the code there short,
/// never wait there for anything the transport must do (a `DispatchSemaphore`, a synchronous
/// `DownloadQueue.close()`) — that waits for ever; a ``BlockingClient`` call there is refused —
/// and hand long or blocking work to another executor. The preference reaches nonisolated async
/// code and default actors; actors with an executor of their own (`@MainActor`, custom executors)
/// keep theirs. Child tasks inherit it.
///
/// Jobs run in the order they arrive, after the work submitted to the loop before them, always on
/// the transport's queue: while a blocking caller drives the loop on its own thread (an idle
/// transport's blocking `send`), jobs run on the queue beside its turns, never inside that call.
/// Once the transport has shut down they still run there, so a task that prefers this executor
/// always runs to its end (a transport that curl could not initialise runs them on a serial queue
/// of the executor's own).
///
/// Nothing is stored or shared: a job is held only until it runs.
public final class TransportExecutor: TaskExecutor, Sendable {
    /// The loop that runs jobs; `nil` when curl gave the transport none.
    private let loop: CurlMultiLoop?
    /// Where jobs run when the loop no longer accepts work: the transport's queue, which no turn
    /// holds any more, or a queue of the executor's own.
    private let fallback: DispatchQueue

    init(loop: CurlMultiLoop?) {
        self.loop = loop
        fallback = loop?.queue ?? DispatchQueue(label: "CurlBridge.TransportExecutor")
    }

    /// Runs `job` on the transport's queue, between the loop's turns.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let run: @Sendable () -> Void = { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        if let loop, loop.submitTaskJob(run) { return }
        fallback.async(execute: run)
    }
}
