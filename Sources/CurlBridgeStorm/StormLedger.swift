import CurlBridge
import Dispatch
import HTTPTypes
import Synchronization

/// Everything the storm knows about each request: its plan, how to cancel it, when it was
/// cancelled, and every completion seen — by the caller (the style's own result) and by the
/// library (its event monitor's `requestDidComplete`).
final class StormLedger: Sendable {
    /// The header that carries a request's index, so the monitor can tell requests apart.
    static let indexHeader = "X-Storm"

    struct Record {
        let plan: StormPlan
        /// Cancels the request (or, for a `cancelAll` batch, wakes a stream consumer to read its end).
        var action: (@Sendable () -> Void)?
        /// A cancel came before the action was registered: run it at registration.
        var isCancelRequested = false
        /// When the cancel was called (monotonic nanoseconds).
        var cancelledAt: UInt64?
        var isGateReached = false
        var styleCompletions = 0
        var styleOutcome: String?
        var monitorCompletions = 0
        var monitorOutcome: String?
        /// When the library's completion event ran.
        var completedAt: UInt64?
    }

    private let records = Mutex<[Int: Record]>([:])
    /// Where scheduled cancels run: one thread that cancels, as a caller's canceller would.
    private let canceller = DispatchQueue(label: "CurlBridgeStorm.canceller")
    /// How many cancel calls were made.
    private let cancelCalls = Atomic<Int>(0)

    /// Records a request about to start.
    func add(_ plan: StormPlan) {
        records.withLock { $0[plan.index] = Record(plan: plan) }
    }

    /// The plan of request `index`.
    func plan(_ index: Int) -> StormPlan? {
        records.withLock { $0[index]?.plan }
    }

    /// Registers how to cancel request `index`; runs it at once if its cancel is already due.
    func register(_ index: Int, _ action: @escaping @Sendable () -> Void) {
        let (runNow, isCancel) = records.withLock { records -> (Bool, Bool) in
            guard var record = records[index] else { return (false, false) }
            record.action = action
            let due = record.isCancelRequested
            if due, record.cancelledAt == nil { record.cancelledAt = monotonicNow() }
            records[index] = record
            return (due, record.plan.path != .cancelAll)  // a batch's action only wakes its consumer
        }
        if runNow {
            if isCancel { cancelCalls.add(1, ordering: .relaxed) }
            action()
        }
    }

    /// The library reached `gate` for request `index`: schedule its cancel, if that is its gate.
    func reached(_ index: Int, _ gate: StormGate) {
        let plan = records.withLock { records -> StormPlan? in
            guard var record = records[index], record.plan.phase.gate == gate, !record.isGateReached else { return nil }
            record.isGateReached = true
            records[index] = record
            return record.plan
        }
        guard let plan, plan.path != .cancelAll else { return }
        canceller.asyncAfter(deadline: .now() + .nanoseconds(Int(plan.delay))) { self.cancel(plan.index) }
    }

    /// Cancels request `index` now through its registered action, or as soon as one is registered.
    /// The instant is taken right at the call.
    func cancel(_ index: Int) {
        let action = records.withLock { records -> (@Sendable () -> Void)? in
            guard var record = records[index] else { return nil }
            defer { records[index] = record }
            guard let action = record.action else {
                record.isCancelRequested = true
                return nil
            }
            if record.cancelledAt == nil { record.cancelledAt = monotonicNow() }
            return action
        }
        if let action {
            cancelCalls.add(1, ordering: .relaxed)
            action()
        }
    }

    /// A `cancelAll()` called at `instant` cancelled the batch `indices`: notes the instant for
    /// those that were not complete by then and wakes their stream consumers. Call after
    /// `cancelAll()` returns.
    func batchCancelled(_ indices: [Int], at instant: UInt64) {
        cancelCalls.add(1, ordering: .relaxed)
        let wakes = records.withLock { records -> [@Sendable () -> Void] in
            var wakes: [@Sendable () -> Void] = []
            for index in indices {
                guard var record = records[index] else { continue }
                // Not complete when cancelAll() was called: its completion is that cancel's.
                if record.completedAt.map({ $0 >= instant }) ?? true { record.cancelledAt = instant }
                if let action = record.action { wakes.append(action) }
                record.isCancelRequested = true
                records[index] = record
            }
            return wakes
        }
        for wake in wakes { wake() }
    }

    /// Whether every request of `indices` reached its gate or completed.
    func allReachedGate(_ indices: [Int]) -> Bool {
        records.withLock { records in
            indices.allSatisfy { records[$0].map { $0.isGateReached || $0.monitorCompletions > 0 } ?? true }
        }
    }

    /// Whether every request of `indices` completed for its caller.
    func allCompleted(_ indices: [Int]) -> Bool {
        records.withLock { records in indices.allSatisfy { (records[$0]?.styleCompletions ?? 1) > 0 } }
    }

    /// The caller got its outcome.
    func styleCompleted(_ index: Int, _ outcome: String) {
        records.withLock { records in
            records[index]?.styleCompletions += 1
            if records[index]?.styleOutcome == nil { records[index]?.styleOutcome = outcome }
        }
    }

    /// The library's completion event ran, at `instant`.
    func monitorCompleted(_ index: Int, _ outcome: String, at instant: UInt64) {
        records.withLock { records in
            guard var record = records[index] else { return }
            record.monitorCompletions += 1
            if record.monitorOutcome == nil {
                record.monitorOutcome = outcome
                record.completedAt = instant
            }
            // Lets go of the handle, task or reader; a batch's wake is still needed by its consumer.
            if record.plan.path != .cancelAll { record.action = nil }
            records[index] = record
        }
    }

    /// How many requests have not completed for their caller, or not in the library's events.
    var outstanding: Int {
        records.withLock { records in records.values.count { $0.styleCompletions == 0 || $0.monitorCompletions == 0 } }
    }

    /// How many cancel calls were made (a `cancelAll()` counts once).
    var cancelCallCount: Int { cancelCalls.load(ordering: .relaxed) }

    /// A copy of every record, for the report.
    var snapshot: [Record] {
        records.withLock { Array($0.values) }
    }

    /// A result as one word: `response`, or the error's code.
    static func outcome<Value>(_ result: Result<Value, RequestError>) -> String {
        switch result {
        case .success: "response"
        case .failure(let error): error.code.description
        }
    }
}

/// The storm's window into the library: each request's start, head, retry and completion, as the
/// transport reports them. Completion instants are taken here, in the library's event.
final class StormMonitor: EventMonitor {
    let queue = DispatchQueue(label: "CurlBridgeStorm.monitor")
    let ledger: StormLedger
    /// Request ids of the transports to storm indices; touched only on `queue`.
    private let indices = Mutex<[UInt64: Int]>([:])
    private static let headerName = HTTPField.Name(StormLedger.indexHeader)!

    init(ledger: StormLedger) {
        self.ledger = ledger
    }

    private static func index(of request: Request) -> Int? {
        request.headerFields[headerName].flatMap { Int($0) }
    }

    func requestDidStart(_ request: Request, id: UInt64) {
        guard let index = Self.index(of: request) else { return }
        indices.withLock { $0[id] = index }
        ledger.reached(index, .start)
    }

    func didReceiveHead(_ head: ResponseHead, id: UInt64, attempt: Int) {
        if let index = indices.withLock({ $0[id] }) { ledger.reached(index, .head) }
    }

    func didScheduleRetry(after attempt: AttemptRecord, delay: Duration, id: UInt64) {
        if let index = indices.withLock({ $0[id] }) { ledger.reached(index, .retry) }
    }

    func requestDidComplete(_ request: Request, id: UInt64, result: Result<Response, RequestError>, duration: Duration) {
        let instant = monotonicNow()
        indices.withLock { _ = $0.removeValue(forKey: id) }
        guard let index = Self.index(of: request) else { return }
        ledger.monitorCompleted(index, StormLedger.outcome(result), at: instant)
    }
}
