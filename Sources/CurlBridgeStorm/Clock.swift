import Dispatch

/// Nanoseconds on the monotonic clock (`CLOCK_MONOTONIC`, as the library's own clock), so
/// instants taken on different threads compare.
func monotonicNow() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}
