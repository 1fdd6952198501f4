/// The time curl's callbacks note activity at, read once per phase of a loop's turn rather than
/// once per callback: a response's header lines, its body pieces and its progress reports mostly
/// arrive in one `curl_multi_perform`, and each read of ``MonotonicClock`` costs about 45
/// instructions, ten of them a request.
///
/// A turn begins (after its poll) with the moment it judges its deadlines at; the loop forgets that
/// reading before it calls `curl_multi_perform`, whose first callback reads the clock again, and
/// the others reuse that reading. A callback is so timed early by at most how long its phase had run — microseconds,
/// within the coarse clock's own resolution of a few milliseconds, and only ever early, so an
/// idle timeout can only be judged sooner by that much, never later.
///
/// Not `Sendable`: made by a loop, read and reset only by its owner.
final class CallbackClock {
    /// This phase's reading, `0` before the first callback of the phase asks.
    private var reading: UInt64 = 0

    /// The moment for a callback of this phase.
    var now: UInt64 {
        if reading == 0 { reading = MonotonicClock.now }
        return reading
    }

    /// A turn begins at `moment`, which its first phase's callbacks take.
    func begin(at moment: UInt64) {
        reading = moment
    }

    /// A new phase begins: the next callback reads the clock again.
    func forget() {
        reading = 0
    }
}
