#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: `Synchronization.Mutex` for state that ThreadSanitizer
/// must be able to check.
///
/// Why not `Mutex`: on Linux, `Mutex` is a priority-inheritance futex. When a thread waits for
/// it, the kernel hands the lock over inside `FUTEX_UNLOCK_PI`/`FUTEX_LOCK_PI`, with no atomic
/// operation in user space that ThreadSanitizer could see, so under `--sanitize=thread` every
/// contended hand-over looks unsynchronised and is reported as a "Swift access race" (the repro is
/// `scripts/tsan-mutex-repro/`). ThreadSanitizer intercepts `pthread_mutex_lock` and
/// `pthread_mutex_unlock`, so a lock over them is understood, and costs the same uncontended (see
/// `scripts/tsan-mutex-repro/README.md` for the measurement).
///
/// A final class: the mutex lives at a stable heap address (a `pthread_mutex_t` must never move or
/// be copied), and the value is reachable only inside ``withLock(_:)``. The value is kept behind
/// a pointer rather than in a stored `var`, which would cost a dynamic exclusivity check
/// (`swift_beginAccess`) on every use: the lock already makes each access exclusive.
///
/// `@unchecked Sendable`: `value` is read and written only between `pthread_mutex_lock` and
/// `pthread_mutex_unlock` of `mutex`.
final class PosixLock<Value: ~Copyable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let value = UnsafeMutablePointer<Value>.allocate(capacity: 1)

    /// A lock guarding `value`.
    init(_ value: consuming Value) {
        self.value.initialize(to: value)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value while holding the lock.
    func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
