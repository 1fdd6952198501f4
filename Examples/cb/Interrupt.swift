import Foundation
import Synchronization

/// Ctrl-C (`SIGINT`): the first cancels the run's task, so that downloads stop cleanly and keep
/// their partial files for `--resume`; a second one exits at once.
///
/// Installed before the task starts: a Ctrl-C that comes before ``attach(_:)`` cancels the task
/// as soon as it is attached.
final class Interrupt {
    private let presses = Presses()
    private let source: any DispatchSourceSignal

    init() {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [presses] in presses.press() }
        source.resume()
    }

    /// The task a Ctrl-C cancels.
    func attach(_ task: Task<ExitStatus, Never>) { presses.attach(task) }

    deinit {
        source.cancel()
    }
}

/// The presses so far and the task they cancel, shared with the signal handler.
private final class Presses: Sendable {
    private struct State {
        var count = 0
        var task: Task<ExitStatus, Never>?
    }

    private let state = Mutex(State())

    func attach(_ task: Task<ExitStatus, Never>) {
        let pressed = state.withLock { state in
            state.task = task
            return state.count > 0
        }
        if pressed { task.cancel() }
    }

    func press() {
        let (count, task) = state.withLock { state in
            state.count += 1
            return (state.count, state.task)
        }
        guard count == 1 else { exit(ExitStatus.interrupted.rawValue) }
        task?.cancel()
    }
}
