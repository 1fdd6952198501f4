import Dispatch
import Glibc
import Synchronization

/// Ctrl-C (`SIGINT`): the first cancels the run, so that downloads stop cleanly and keep their
/// partial files for `--resume`; a second one exits at once.
final class Interrupt: Sendable {
    private let source: any DispatchSourceSignal
    private let count = Atomic<Int>(0)

    /// Calls `cancel` on the first `SIGINT` while this lives.
    init(cancel: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [count] in
            if count.add(1, ordering: .relaxed).newValue == 1 { cancel() } else { exit(ExitStatus.interrupted.rawValue) }
        }
        source.resume()
    }

    deinit {
        source.cancel()
    }
}
