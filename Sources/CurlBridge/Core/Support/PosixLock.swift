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
/// A copy shares the lock and the value: both live in one heap object, ``PosixLockStorage`` (the
/// mutex at a stable address, as a `pthread_mutex_t` must never move or be copied), one
/// allocation per lock. The value is reachable only inside ``withLock(_:)``, through a pointer
/// rather than a stored `var`, which would cost a dynamic exclusivity check (`swift_beginAccess`)
/// on every use: the lock already makes each access exclusive.
///
/// Like `Mutex`, it is `Sendable` whatever the value: state that is not (a pooled buffer's
/// pointer, say) may live inside and is reached only there. Unlike `Mutex`, it does not check that
/// what goes in or comes out is `sending`: a non-`Sendable` value must not be kept outside too.
///
/// `@unchecked Sendable`: the value is reached only between `pthread_mutex_lock` and `pthread_mutex_unlock`.
struct PosixLock<Value: ~Copyable>: @unchecked Sendable {
    private let storage: PosixLockStorage<Value>

    /// A lock guarding `value`.
    init(_ value: consuming Value) {
        storage = PosixLockStorage.make(value)
    }

    /// Runs `body` with the value while holding the lock.
    func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeMutablePointers { (mutex, value) throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// The heap object of a ``PosixLock``: the mutex as the header, the value as the one element.
private final class PosixLockStorage<Value: ~Copyable>: ManagedBuffer<pthread_mutex_t, Value> {
    /// A storage holding `value`, its mutex initialised.
    static func make(_ value: consuming Value) -> PosixLockStorage {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in pthread_mutex_t() }, to: PosixLockStorage.self)
        var pending = Optional(value)
        storage.withUnsafeMutablePointers { mutex, element in
            initializePosixMutex(mutex)
            element.initialize(to: pending.take()!)
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointers { mutex, element in
            element.deinitialize(count: 1)
            pthread_mutex_destroy(mutex)
        }
    }
}

/// Initialises `mutex` with the default attributes, or stops the process: a lock that could not
/// be made would guard nothing. For a mutex at a stable address in a heap object (``PosixLock``'s
/// storage, a response's header storage), destroyed with `pthread_mutex_destroy` in its deinit.
func initializePosixMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    let status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "pthread_mutex_init failed: \(status)")
}
