import Dispatch
import Glibc
import Synchronization

/// Hands out request indices `0..<total`, each once, to whichever worker asks next.
public final class IndexDispenser: Sendable {
    private let next = Atomic<Int>(0)
    /// How many indices there are.
    public let total: Int

    /// Creates a dispenser of `0..<total`.
    public init(total: Int) { self.total = total }

    /// The next index, or `nil` when all have been handed out.
    public func take() -> Int? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < total ? index : nil
    }
}

/// Runs blocking work on plain worker threads (never the main thread, never inside a task).
public enum WorkerThreads {
    /// Runs `body` for each index in `0..<requests` on `threads` new threads, each taking the
    /// next index when it is done with the previous one, and returns when all are done.
    public static func run(threads: Int, requests: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let dispenser = IndexDispenser(total: requests)
        let work: @Sendable () -> Void = {
            while let index = dispenser.take() { body(index) }
        }
        var started: [pthread_t] = []
        for _ in 0..<max(1, threads) {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(ThreadWork(work)).toOpaque()
            let created = pthread_create(&thread, nil, { context in
                Unmanaged<ThreadWork>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
            guard created == 0 else {
                Unmanaged<ThreadWork>.fromOpaque(context).release()
                standardError("pthread_create failed: \(created)")
                continue
            }
            started.append(thread)
        }
        for thread in started { pthread_join(thread, nil) }
    }

    private final class ThreadWork: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}

/// Runs async work from synchronous code.
public enum AsyncWorkers {
    /// Runs `body` for each index in `0..<requests` in `concurrency` child tasks, each taking the
    /// next index when it is done with the previous one: `concurrency` requests in flight.
    public static func run(concurrency: Int, requests: Int, _ body: @escaping @Sendable (Int) async -> Void) async {
        let dispenser = IndexDispenser(total: requests)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, concurrency) {
                group.addTask {
                    while let index = dispenser.take() { await body(index) }
                }
            }
        }
    }

    /// Runs `operation` in a task (preferring `executor`, if any; its child tasks inherit the
    /// preference) and blocks the calling (synchronous) thread until it is done.
    public static func block(executor: (any TaskExecutor)? = nil, on operation: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            await operation()
            done.signal()
        }
        done.wait()
    }
}
