/// The time curl's callbacks note activity at, read once per phase of a loop's turn rather than
/// once per callback: a response's header lines, its body pieces and its progress reports mostly
/// arrive in one `curl_multi_perform`, and each read of ``MonotonicClock`` costs about 25
/// instructions with its call, ten of them a request.
///
/// A turn begins (after its poll) with the moment it judges its deadlines at; the loop forgets that
/// reading before it calls `curl_multi_perform`, whose first callback reads the clock again, and
/// the others reuse that reading. A transfer that resumes reads it afresh too, for the bytes curl
/// delivers as it resumes. A callback is so timed early by at most how long its phase had run:
/// usually microseconds, but a turn's work phase also runs the tasks on the transport's executor,
/// which can take longer. Only ever early — and ``IdleClock`` never moves a transfer's last
/// activity back — so an idle timeout can be judged sooner by that much, never later.
///
/// Not `Sendable`: made by a loop, read and reset only by its owner.
final class CallbackClock {
    /// This phase's reading, `0` before the first callback of the phase asks. Read and written in
    /// every callback, by the loop's owner only: no run-time exclusivity check.
    @exclusivity(unchecked) private var reading: UInt64 = 0

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

    /// The moment now, read from the clock, which the phase's later callbacks then share (a
    /// transfer that resumes, for the bytes curl delivers as it does).
    func readAfresh() -> UInt64 {
        forget()
        return now
    }
}
