import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation
import Synchronization

/// The cancellation storm: requests cancelled at random phases, in the three styles, through
/// every cancel path, against the embedded server; then the figures.
///
/// Every request is tagged with its index; the storm's event monitor sees the library's events
/// for it. A request is cancelled a random moment after its gate (its start, its head, or its
/// first retry being scheduled), through its own handle, task or canceller — or, for one request
/// in eight, together with a batch of 32 by `cancelAll()` on a transport of their own.
struct CancelStorm {
    struct Options {
        var seed: UInt64
        /// Stop after this many requests…
        var count: Int?
        /// …or after starting requests for this many seconds.
        var duration: Double?
        /// Requests in flight at once, batches aside.
        var concurrency = 256
    }

    static let batchSize = 32
    /// One plan in this many goes to a `cancelAll` batch.
    static let batchShare = 8
    /// How long the storm waits for outstanding completions once it stops starting requests.
    static let drainLimit = 60.0

    let options: Options

    /// Runs the storm and prints the report; returns the exit status (0 when nothing was lost,
    /// duplicated or unexpected and every count came back to its baseline).
    func run() throws -> Int32 {
        print("storm seed=\(options.seed) (replay with --seed \(options.seed))")
        let server = try TestServer.startAndWait()
        let unanswered = try UnansweredConnectPort()
        let testCA = try CertificateBundle(pem: TestServer.certificateAuthorityPEM)
        let ledger = StormLedger()
        func configuration(_ limits: ConnectionLimits = ConnectionLimits()) -> Configuration {
            Configuration(
                timeouts: Timeouts(connect: .seconds(30), idle: .seconds(30), total: nil),
                tls: TLSConfiguration(trustRoots: .replacingSystem(with: testCA)), connectionLimits: limits,
                retryBudget: .unlimited, eventMonitors: [StormMonitor(ledger: ledger)])
        }
        StormClients.warmUp(server: server, configuration: configuration())
        Thread.sleep(forTimeInterval: 0.5)  // the server closes its side of the warm-up's connections
        let before = ProcessCounts.now()
        print("storm before \(before)")

        let targets = StormTargets(
            plain: server.httpURL.absoluteString, secure: server.httpsURL.absoluteString,
            stallPort: server.stallPort, unansweredPort: unanswered.port)
        let workers = WorkerPool(threads: 64)
        let launcher = StormLauncher(ledger: ledger, targets: targets, workers: workers)
        let main = StormClients(Transport(configuration: configuration()))
        let batches = StormClients(Transport(configuration: configuration()))
        // Two connections, both held by requests that are never answered: the storm's queued
        // requests wait for a connection until they are cancelled.
        let queued = StormClients(Transport(configuration: configuration(ConnectionLimits(total: 2, perHost: 2))))
        for _ in 0..<2 { queued.callback.send(.get(targets.plain + "never-respond")) { _ in } }

        let slots = DispatchSemaphore(value: options.concurrency)
        let batchRunner = BatchRunner(launcher: launcher, clients: batches)
        var random = SeededGenerator(seed: options.seed)
        var batch: [StormPlan] = []
        let started = monotonicNow()
        let deadline = options.duration.map { started + UInt64($0 * 1e9) }
        var index = 0
        while options.count.map({ index < $0 }) ?? true, deadline.map({ monotonicNow() < $0 }) ?? true {
            let batched = UInt64.random(in: 0..<UInt64(Self.batchShare), using: &random) == 0
            let plan = StormPlan.draw(index: index, batched: batched, using: &random)
            index += 1
            if batched {
                batch.append(plan)
                if batch.count == Self.batchSize {
                    batchRunner.submit(batch, seed: random.next())
                    batch = []
                }
                continue
            }
            slots.wait()
            let clients = plan.phase == .queued ? queued : main
            launcher.launch(plan, on: clients) { slots.signal() }
        }
        if !batch.isEmpty { batchRunner.submit(batch, seed: random.next()) }
        let launched = monotonicNow()
        batchRunner.finish()

        let drainDeadline = Date().addingTimeInterval(Self.drainLimit)
        while ledger.outstanding > 0, Date() < drainDeadline { Thread.sleep(forTimeInterval: 0.01) }
        let ended = monotonicNow()
        let report = StormReport(records: ledger.snapshot)

        queued.transport.cancelAll()  // the two requests holding its connections
        for clients in [main, batches, queued] { clients.shutdown() }
        workers.stop()
        let after = ProcessCounts.settled(to: before, threadSlack: 4, limit: 10)
        print("storm after \(after)")

        let seconds = Double(ended - started) / 1e9
        let cancelsPerSecond = Double(ledger.cancelCallCount) / seconds
        report.printDetails()
        print(
            "storm seed=\(options.seed) requests=\(index) seconds=\(LatencySummary.format(seconds))"
                + " startingSeconds=\(LatencySummary.format(Double(launched - started) / 1e9))"
                + " cancelCalls=\(ledger.cancelCallCount) cancelsPerSecond=\(Int(cancelsPerSecond))"
                + " \(report.summary)"
                + " fdBefore=\(before.descriptors) fdAfter=\(after.descriptors)"
                + " threadsBefore=\(before.threads) threadsAfter=\(after.threads)"
                + " handlesBefore=\(before.easyHandles) handlesAfter=\(after.easyHandles)"
                + " transfersAfter=\(after.transfers)")
        try server.shutdownAndWait()
        let clean = report.isClean && after.descriptors <= before.descriptors && after.easyHandles == 0 && after.transfers == 0
            && after.threads <= before.threads + 4
        return clean ? 0 : 1
    }

}

/// Runs `cancelAll` batches one after another on a thread of its own: starts the batch, waits
/// until each request reached its gate (or completed), waits a random 0–5 ms, calls
/// `cancelAll()`, and waits until every request of the batch completed for its caller.
final class BatchRunner: Sendable {
    private let launcher: StormLauncher
    private let clients: StormClients
    private let queue = DispatchQueue(label: "CurlBridgeStorm.batches")
    /// At most two batches wait, so the storm's plan never runs far ahead of the batches.
    private let room = DispatchSemaphore(value: 2)

    init(launcher: StormLauncher, clients: StormClients) {
        self.launcher = launcher
        self.clients = clients
    }

    func submit(_ plans: [StormPlan], seed: UInt64) {
        room.wait()
        queue.async { [self] in
            run(plans, seed: seed)
            room.signal()
        }
    }

    /// Waits for every submitted batch.
    func finish() {
        queue.sync {}
    }

    private func run(_ plans: [StormPlan], seed: UInt64) {
        let ledger = launcher.ledger
        let indices = plans.map(\.index)
        for plan in plans { launcher.launch(plan, on: clients) {} }
        wait(limit: 10) { ledger.allReachedGate(indices) }
        var random = SeededGenerator(seed: seed)
        usleep(UInt32.random(in: 0...5000, using: &random))
        let instant = monotonicNow()
        clients.transport.cancelAll()
        ledger.batchCancelled(indices, at: instant)
        wait(limit: CancelStorm.drainLimit) { ledger.allCompleted(indices) }
    }

    private func wait(limit: Double, until isMet: () -> Bool) {
        let deadline = Date().addingTimeInterval(limit)
        while !isMet(), Date() < deadline { usleep(200) }
    }
}
