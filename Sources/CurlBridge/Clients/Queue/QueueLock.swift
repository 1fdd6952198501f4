import Foundation

/// The queue's lock: one value, reached only while an `NSLock` (a pthread mutex, which
/// ThreadSanitizer sees) is held. The queue's own, since it is built on CurlBridge's public API
/// only, as a program's would be.
///
/// `@unchecked Sendable`: `value` is read and written only inside `withLock`, under `lock`.
final class QueueLock<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A lock guarding `value`.
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
