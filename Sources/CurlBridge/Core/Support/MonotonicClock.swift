#if canImport(Glibc)
import Glibc
#endif

/// The clock behind idle timeouts and timers, read by the loop at every turn and for curl's
/// callbacks once per phase of it (``CallbackClock``): `CLOCK_MONOTONIC_COARSE`, a vDSO
/// read of the last timer tick (a few milliseconds of resolution, ample for timeouts counted in
/// milliseconds) that costs a fraction of the precise clock.
enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point.
    static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// How far ``now`` may lag the precise clock: one tick, in nanoseconds. A timer that must not
    /// fire before this clock has advanced by its delay waits this much longer.
    static let resolution: UInt64 = {
        var time = timespec()
        clock_getres(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }()
}
