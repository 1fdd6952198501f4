@testable import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation
import Synchronization

/// Runs one ``InterleavingSchedule``: a transport of its own, the request in its style and verb,
/// the disruption at its moment; once the caller has its outcome, the transport is shut down and
/// every queue flushed, so a second completion, had there been one, would be counted.
struct InterleavingRun: Sendable {
    /// Where the server is, and what uploads send.
    struct Environment: Sendable {
        let plain: String
        let secure: String
        let testCA: CertificateBundle
        /// A 64 KiB file that uploads send.
        let uploadFile: URL
        /// Where downloads go.
        let scratch: URL
    }

    let schedule: InterleavingSchedule
    let environment: Environment

    /// The outcome the caller got, recorded once per call.
    final class Record: Sendable {
        let observation = PosixLock(InterleavingObservation())
        let cancel = CancelSlot()
        let started = MonotonicClock.now
        let finished = DispatchSemaphore(value: 0)
        /// Signalled once the disruption is made and stamped (at once when there is none).
        let disrupted = DispatchSemaphore(value: 0)
        /// Whether the library scheduled a retry or completed (its monitor said so).
        let isSettled = Atomic(false)
    }

    /// Runs the schedule; `done` gets what was seen.
    func run(done: @escaping @Sendable (InterleavingObservation) -> Void) {
        let record = Record()
        let monitorQueue = DispatchQueue(label: "CurlBridgeStorm.interleave.monitor")
        let callbackQueue = DispatchQueue(label: "CurlBridgeStorm.interleave.callbacks")
        let monitor = ClosureEventMonitor(
            queue: monitorQueue, didScheduleRetry: { _, _, _ in record.isSettled.store(true, ordering: .relaxed) },
            requestDidComplete: { _, _, result, _ in
                record.isSettled.store(true, ordering: .relaxed)
                record.observation.withLock { $0.libraryOutcomes.append(Self.outcome(result.map { $0.status.code })) }
            })
        let transport = Transport(configuration: configuration(monitor: monitor))
        let clients = (
            blocking: BlockingClient(transport: transport), async: AsyncClient(transport: transport),
            callback: CallbackClient(transport: transport, completionQueue: callbackQueue))
        let finish: @Sendable (String, String?) -> Void = { outcome, defect in
            record.observation.withLock {
                $0.outcomes.append(outcome)
                if $0.defect == nil { $0.defect = defect }
            }
            record.finished.signal()
        }
        start(on: clients, record: record, finish: finish)
        disrupt(transport, record: record)
        let (schedule, scratch) = (self.schedule, environment.scratch)
        Thread.detachNewThread {
            // Every schedule ends within milliseconds, or at its timeout (at most 400 ms): one
            // still running after 20 s lost its cancel (the server's answers are a minute away).
            if record.finished.wait(timeout: .now() + Self.patience) == .timedOut {
                record.observation.withLock { $0.defect = "no completion within \(Self.patience)" }
                transport.cancelAll()
                _ = record.finished.wait(timeout: .now() + Self.patience)
            }
            let closed = DispatchSemaphore(value: 0)
            transport.shutdown { closed.signal() }
            if closed.wait(timeout: .now() + Self.patience) == .timedOut {
                record.observation.withLock { $0.defect = $0.defect ?? "the transport's shutdown did not finish within \(Self.patience)" }
            }
            callbackQueue.sync {}
            monitorQueue.sync {}
            _ = record.disrupted.wait(timeout: .now() + Self.patience)
            try? FileManager.default.removeItem(at: scratch.appendingPathComponent("download-\(schedule.index)"))
            var observation = record.observation.withLock { $0 }
            observation.arrivals = TestServer.requestCount(key: schedule.countKey)
            done(observation)
        }
    }

    /// The transport's configuration: the timeouts and retries the scenario needs.
    private func configuration(monitor: ClosureEventMonitor) -> Configuration {
        var timeouts = Timeouts(connect: .seconds(30), idle: .seconds(90), total: nil)
        if schedule.scenario == .stalled { timeouts.idle = .milliseconds(schedule.idleTimeout) }
        if case .totalTimeout(let milliseconds) = schedule.disruption { timeouts.total = .milliseconds(milliseconds) }
        var retries = RetryPolicy.none
        if schedule.scenario == .retryWait || schedule.scenario == .retryQuick {
            let backoff = Duration.milliseconds(schedule.quickDelay)
            retries = RetryPolicy(maximumAttempts: 2, baseDelay: backoff, maximumDelay: backoff, maximumRetryAfter: .seconds(120))
        }
        return Configuration(
            timeouts: timeouts, tls: TLSConfiguration(trustRoots: .replacingSystem(with: environment.testCA)),
            retryPolicy: retries, retryBudget: .unlimited, eventMonitors: [monitor])
    }

    /// The request the schedule sends.
    var request: Request {
        let base = schedule.isSecure ? environment.secure : environment.plain
        let count = "count=\(schedule.countKey)"
        let quick = schedule.quickDelay
        let path: String
        switch (schedule.scenario, schedule.verb) {
        case (.quick, .upload): path = "upload-sink?delay=\(quick)&\(count)"
        case (.quick, .stream): path = "drip?bytes=3&interval=\(quick)&\(count)"
        case (.quick, _): path = "delay/\(quick)?\(count)"
        case (.blocked, .upload), (.stalled, .upload): path = "upload-sink?delay=60000&\(count)"
        case (.blocked, .stream), (.stalled, .stream): path = "drip?bytes=2&interval=60000&\(count)"
        case (.blocked, _): path = "delay/60000?\(count)"
        case (.stalled, _): path = "never-respond?\(count)"
        case (.retryWait, _): path = "flaky?key=\(schedule.countKey)&failures=1&retry-after=60&\(count)"
        case (.retryQuick, _): path = "flaky?key=\(schedule.countKey)&failures=1&\(count)"
        case (.redirect, let verb):
            let target = verb == .upload ? "/upload-sink?delay=\(quick)&\(count)" : "/delay/\(quick)?\(count)"
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
            path = "redirect-to?url=\(encoded)&status=\(verb == .upload ? 307 : 302)&\(count)"
        }
        return schedule.verb == .upload ? .put(base + path) : .get(base + path)
    }

    /// Makes the disruption at its moment, noting when it was made. A request's own cancel may
    /// come at any moment, even before the call reached the transport (it is sticky); a
    /// transport-wide one (`cancelAll`, a shutdown) acts on the requests the transport holds, so
    /// it waits until the request is there: in a transfer, waiting to be retried, or done.
    private func disrupt(_ transport: Transport, record: Record) {
        guard let delay = schedule.disruption.delay else {
            record.disrupted.signal()
            return
        }
        var disruption = schedule.disruption
        // A blocking stream has no handle before its head, a download none while its file is
        // prepared: their own cancel is cancelAll.
        let usesCancelAll = schedule.style == .blocking && schedule.verb == .stream
        if case .cancel(let delay) = disruption, usesCancelAll { disruption = .cancelAll(afterMilliseconds: delay) }
        if case .cancelAll(let delay) = disruption, schedule.verb == .download, !usesCancelAll {
            disruption = .cancel(afterMilliseconds: delay)
        }
        let isTransportWide = if case .cancel = disruption { false } else { true }
        Thread.detachNewThread { [disruption] in
            if isTransportWide {
                let limit = MonotonicClock.now + 30_000_000_000
                while transport.inFlightCount == 0, !record.isSettled.load(ordering: .relaxed), MonotonicClock.now < limit {
                    usleep(500)
                }
            }
            usleep(useconds_t(delay * 1000))
            // Stamped once made, not before: this thread may be held up between the two on a
            // busy machine, and the verdict needs a moment by which the disruption surely came.
            defer {
                let at = Double(MonotonicClock.now - record.started) / 1e6
                record.observation.withLock { $0.disruptedAt = at }
                record.disrupted.signal()
            }
            switch disruption {
            case .cancel:
                record.cancel.cancel()
            case .cancelAll:
                transport.cancelAll()
            case .shutdown:
                transport.shutdown {}
            case .stop:
                transport.cancelAll()
                transport.shutdown {}
            case .none, .totalTimeout:
                break
            }
        }
    }

    /// How long a schedule may run before it counts as stuck.
    static let patience = DispatchTimeInterval.seconds(20)

    /// The outcome of a status or a failure, as the verdict names it.
    static func outcome(_ result: Result<Int, RequestError>) -> String {
        switch result {
        case .success(let status): String(status)
        case .failure(let error): error.code.description
        }
    }
}

/// A cancel that may be asked for before the call has a handle to cancel: it runs when the handle
/// is registered.
final class CancelSlot: Sendable {
    private let state = PosixLock<(action: (@Sendable () -> Void)?, isRequested: Bool)>((nil, false))

    /// Registers how to cancel; runs it at once if a cancel was already asked for.
    func register(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            state.action = action
            return state.isRequested
        }
        if runNow { action() }
    }

    /// Cancels now, or as soon as a handle is registered.
    func cancel() {
        let action = state.withLock { state in
            state.isRequested = true
            return state.action
        }
        action?()
    }
}
