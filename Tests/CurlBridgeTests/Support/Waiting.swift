import Foundation
import Testing

/// Checks `isMet()` every millisecond until it holds, then runs `action` at once and returns
/// `true`; returns `false` if it still does not hold after `limit`.
///
/// The checks and `action` run on a thread of their own, not in a task: on a busy machine the
/// cooperative pool (two threads on two cores) can leave a task waiting for seconds, and neither
/// the check nor what must follow it may wait with it.
func poll(
    within limit: Duration, until isMet: @escaping @Sendable () -> Bool, then action: @escaping @Sendable () -> Void = {}
) async -> Bool {
    let deadline = ContinuousClock.now + limit
    return await onWorkerThread {
        while !isMet() {
            guard ContinuousClock.now < deadline else { return false }
            usleep(1000)
        }
        action()
        return true
    }
}

extension Trait where Self == TimeLimitTrait {
    /// For suites whose tests wait on the network, other threads or child processes: a test still
    /// running after two minutes (a whole run takes seconds, tens of seconds on a loaded machine)
    /// is hung, and fails by name instead of stalling the run without a word.
    static var hangGuard: Self { .timeLimit(.minutes(2)) }
}
