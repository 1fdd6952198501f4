@testable import CurlBridge
import Foundation
import Testing

/// Every event in every stage of one download in ``DownloadQueueState``, the impossible pairs
/// included (a transfer's end when none runs, a timer that is not the download's, a pause of a
/// finished download): the stage it leads to and the actions it returns, with no I/O. One
/// download in a queue of one slot, so that every start is its own.
@Suite("DownloadQueue: every (stage, event) pair of a download")
struct DownloadQueueStateTableTests {
    typealias Stage = DownloadQueueState.Stage

    /// An action by kind, a journal record by its operation.
    enum ActionName: Hashable, CustomStringConvertible {
        case journal(QueueJournal.Record.Operation)
        case start, stop, retryAfter, cancelRetryWait, discard, changed, diskFull

        var description: String {
            switch self {
            case .journal(let operation): "journal(\(operation))"
            case .start: "start"
            case .stop: "stop"
            case .retryAfter: "retryAfter"
            case .cancelRetryWait: "cancelRetryWait"
            case .discard: "discard"
            case .changed: "changed"
            case .diskFull: "diskFull"
            }
        }

        init(_ action: DownloadQueueState.Action) {
            switch action {
            case .journal(let record): self = .journal(record.operation)
            case .start: self = .start
            case .stop: self = .stop
            case .retryAfter: self = .retryAfter
            case .cancelRetryWait: self = .cancelRetryWait
            case .discard: self = .discard
            case .emit(.changed): self = .changed
            case .emit(.diskFull): self = .diskFull
            }
        }
    }

    /// The events a download's machine takes, each applied to download 1.
    enum Event: String, CaseIterable, CustomStringConvertible {
        case schedule, pause, resume, cancel, checkpoint
        case endedSuccess, endedRetryable, endedFatal, endedStopped, endedDiskFull
        case retryWaitEnded, staleRetryWaitEnded, couldNotStart, close

        var description: String { rawValue }

        func apply(to machine: inout DownloadQueueState) -> [ActionName] {
            let actions: [DownloadQueueState.Action] =
                switch self {
                case .schedule: machine.schedule()
                case .pause: machine.pause(1)
                case .resume: machine.resume(1)
                case .cancel: machine.cancel(1)
                case .checkpoint: machine.checkpoint(1, Fixture.resume(40))
                case .endedSuccess: machine.ended(1, .success(Fixture.response))
                case .endedRetryable: machine.ended(1, .failure(RequestError(.connectionLost, "cut")))
                case .endedFatal: machine.ended(1, .failure(RequestError(.invalidURL, "no such thing")))
                case .endedStopped: machine.ended(1, .failure(RequestError(.cancelled, "stopped").resumable(with: Fixture.resume(30))))
                case .endedDiskFull:
                    machine.ended(1, .failure(
                        RequestError(.fileIO, "No space left on device", underlying: POSIXError(.ENOSPC)).resumable(with: Fixture.resume(60))))
                case .retryWaitEnded: machine.retryWaitEnded(1, timer: 1)
                case .staleRetryWaitEnded: machine.retryWaitEnded(1, timer: 99)
                case .couldNotStart: machine.couldNotStart(1, RequestError(.invalidURL, "journaled without its query"))
                case .close: machine.close()
                }
            return actions.map(ActionName.init)
        }
    }

    enum Fixture {
        static let destination = URL(fileURLWithPath: "/tmp/queue-table/file")

        static func resume(_ bytes: Int64) -> ResumeData {
            ResumeData(
                url: "http://a/f", validator: .entityTag("\"1\""), bytesOnDisk: bytes,
                partialFileURL: URL(fileURLWithPath: "/tmp/queue-table/.file.k1.curlbridge-partial"), destination: destination,
                expectedLength: 100)
        }

        static let response = DownloadResponse(
            status: .ok, headerFields: [:], fileURL: destination, bytesWritten: 100, resumedFromOffset: 0, sha256: nil, url: "http://a/f",
            httpVersion: .http1_1, metrics: .fromCache(.bypassed), redirects: [], attempts: [])

        /// A machine of one slot whose only download, 1, was brought into `stage` by real events.
        static func machine(in stage: Stage) -> DownloadQueueState {
            var machine = DownloadQueueState.fixture(concurrency: 1, failures: 2)
            machine.replay([.init(operation: .enqueue, id: 1, url: "http://a/f", destination: destination.path)])
            switch stage {
            case .waiting: break
            case .paused: _ = machine.pause(1)
            case .cancelled: _ = machine.cancel(1)
            case .running, .backingOff, .pausing, .cancelling, .finished, .failed:
                _ = machine.schedule()
                switch stage {
                case .backingOff: _ = machine.ended(1, .failure(RequestError(.connectionLost, "cut")))
                case .pausing: _ = machine.pause(1)
                case .cancelling: _ = machine.cancel(1)
                case .finished: _ = machine.ended(1, .success(response))
                case .failed: _ = machine.ended(1, .failure(RequestError(.invalidURL, "no such thing")))
                default: break
                }
            }
            return machine
        }
    }

    /// What an event does in a stage.
    struct Expected: Equatable, CustomStringConvertible {
        var stage: Stage
        var actions: [ActionName] = []

        var description: String { "\(stage) \(actions)" }
    }

    /// The expected outcome of `event` in `stage`: every pair not listed does nothing.
    static func expected(_ stage: Stage, _ event: Event) -> Expected {
        switch (stage, event) {
        // Waiting for a slot.
        case (.waiting, .schedule): Expected(stage: .running, actions: [.start, .changed])
        case (.waiting, .pause): Expected(stage: .paused, actions: [.journal(.pause), .changed])
        case (.waiting, .cancel): Expected(stage: .cancelled, actions: [.journal(.cancel), .changed])
        // Waiting out a backoff: a pause, a cancel or a close ends the wait; only its own timer starts it.
        case (.backingOff, .pause): Expected(stage: .paused, actions: [.journal(.pause), .cancelRetryWait, .changed])
        case (.backingOff, .cancel): Expected(stage: .cancelled, actions: [.journal(.cancel), .cancelRetryWait, .changed])
        case (.backingOff, .retryWaitEnded): Expected(stage: .running, actions: [.start, .changed])
        case (.backingOff, .close): Expected(stage: .waiting, actions: [.cancelRetryWait])
        // Transferring.
        case (.running, .pause): Expected(stage: .pausing, actions: [.journal(.pause), .stop])
        case (.running, .cancel): Expected(stage: .cancelling, actions: [.journal(.cancel), .stop])
        case (.running, .checkpoint), (.pausing, .checkpoint), (.cancelling, .checkpoint):
            Expected(stage: stage, actions: [.journal(.checkpoint)])
        case (.running, .endedSuccess), (.pausing, .endedSuccess), (.cancelling, .endedSuccess):
            Expected(stage: .finished, actions: [.journal(.finish), .changed])
        case (.running, .endedRetryable): Expected(stage: .backingOff, actions: [.retryAfter, .changed])
        case (.running, .endedFatal): Expected(stage: .failed, actions: [.journal(.fail), .changed])
        // A stop nobody asked for (the queue released) is not retried.
        case (.running, .endedStopped): Expected(stage: .failed, actions: [.journal(.checkpoint), .journal(.fail), .changed])
        case (.running, .endedDiskFull): Expected(stage: .paused, actions: [.journal(.checkpoint), .journal(.pause), .changed, .diskFull])
        case (.running, .couldNotStart): Expected(stage: .paused, actions: [.journal(.pause), .changed])
        case (.running, .close), (.pausing, .close), (.cancelling, .close): Expected(stage: stage, actions: [.stop])
        // Stopping for a pause: its end pauses it, whatever ended it; a resume takes the pause back.
        // A second pause journals and stops again (harmless: the same record, a stop of a stopping transfer).
        case (.pausing, .pause): Expected(stage: .pausing, actions: [.journal(.pause), .stop])
        case (.pausing, .resume): Expected(stage: .running, actions: [.journal(.resume)])
        case (.pausing, .cancel): Expected(stage: .cancelling, actions: [.journal(.cancel), .stop])
        case (.pausing, .endedRetryable), (.pausing, .endedFatal): Expected(stage: .paused, actions: [.changed])
        case (.pausing, .endedStopped): Expected(stage: .paused, actions: [.journal(.checkpoint), .changed])
        case (.pausing, .endedDiskFull): Expected(stage: .paused, actions: [.journal(.checkpoint), .changed, .diskFull])
        case (.pausing, .couldNotStart): Expected(stage: .paused, actions: [.changed])
        // Stopping for a cancel: its end cancels it and deletes what it kept.
        case (.cancelling, .pause): Expected(stage: .cancelling, actions: [.journal(.pause), .stop])
        case (.cancelling, .cancel): Expected(stage: .cancelling, actions: [.journal(.cancel), .stop])
        case (.cancelling, .endedRetryable), (.cancelling, .endedFatal), (.cancelling, .couldNotStart):
            Expected(stage: .cancelled, actions: [.changed])
        case (.cancelling, .endedStopped): Expected(stage: .cancelled, actions: [.journal(.checkpoint), .discard, .changed])
        case (.cancelling, .endedDiskFull): Expected(stage: .cancelled, actions: [.journal(.checkpoint), .discard, .changed, .diskFull])
        // Paused.
        case (.paused, .resume): Expected(stage: .running, actions: [.journal(.resume), .changed, .start, .changed])
        case (.paused, .cancel): Expected(stage: .cancelled, actions: [.journal(.cancel), .changed])
        // Everything else does not apply: finished, failed and cancelled downloads take no event,
        // a transfer's end or a checkpoint needs a running transfer, a timer needs its wait.
        default: Expected(stage: stage)
        }
    }

    @Test("Every stage is reached by real events")
    func stagesAreReached() {
        for stage in Stage.allCases { #expect(Fixture.machine(in: stage).stage(of: 1) == stage, "\(stage)") }
    }

    @Test("Every event in every stage: the stage it leads to and its actions", arguments: Stage.allCases, Event.allCases)
    func everyPair(stage: Stage, event: Event) {
        var machine = Fixture.machine(in: stage)
        let actions = event.apply(to: &machine)
        let expected = Self.expected(stage, event)
        #expect(Expected(stage: machine.stage(of: 1) ?? .waiting, actions: actions) == expected, "\(stage) × \(event)")
    }
}
