import Dispatch
import Glibc
import Synchronization

/// Ctrl-C (`SIGINT`): the first cancels the run, so that downloads stop cleanly and keep their
/// partial files for `--resume`; a second one exits at once.
final class Interrupt {
    private let source: any DispatchSourceSignal

    /// Calls `cancel` on the first `SIGINT` while this lives.
    init(cancel: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        let presses = Presses()
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            if presses.count() == 1 { cancel() } else { exit(ExitStatus.interrupted.rawValue) }
        }
        source.resume()
    }

    deinit {
        source.cancel()
    }
}

/// How many times Ctrl-C was pressed.
private final class Presses: Sendable {
    private let value = Atomic<Int>(0)

    /// Counts one more press and returns the count.
    func count() -> Int { value.add(1, ordering: .relaxed).newValue }
}
