/// What the storm's records add up to: lost, duplicated and unexpected completions, and the
/// latency from each cancel call to the library's completion event, overall and by phase, style
/// and path.
struct StormReport {
    /// A request that did not end as it must.
    struct Problem: CustomStringConvertible {
        let plan: StormPlan
        let what: String
        var description: String {
            "storm problem index=\(plan.index) phase=\(plan.phase) style=\(plan.style) path=\(plan.path) secure=\(plan.secure) \(what)"
        }
    }

    let requests: Int
    var completions = 0
    var lost = 0
    var duplicates = 0
    var cancelled = 0
    var responses = 0
    /// Outcomes other than a response or `cancelled`, disagreements between the caller and the
    /// library, responses where none can come, and cancellations with no cancel before them.
    var unexpected = 0
    var problems: [Problem] = []
    /// Cancel call to completion event, in nanoseconds, for requests that ended cancelled.
    var latencies: [UInt64] = []
    var byPhase: [String: [UInt64]] = [:]
    var byStyle: [String: [UInt64]] = [:]
    var byPath: [String: [UInt64]] = [:]

    init(records: [StormLedger.Record]) {
        requests = records.count
        for record in records.sorted(by: { $0.plan.index < $1.plan.index }) { add(record) }
    }

    private mutating func add(_ record: StormLedger.Record) {
        let plan = record.plan
        if record.styleCompletions > 0 { completions += 1 }
        guard record.styleCompletions > 0, record.monitorCompletions > 0 else {
            lost += 1
            problems.append(Problem(plan: plan, what: "lost caller=\(record.styleCompletions) library=\(record.monitorCompletions)"))
            return
        }
        if record.styleCompletions > 1 || record.monitorCompletions > 1 {
            duplicates += 1
            problems.append(Problem(plan: plan, what: "duplicate caller=\(record.styleCompletions) library=\(record.monitorCompletions)"))
        }
        let outcome = record.styleOutcome ?? "none"
        guard outcome == record.monitorOutcome else {
            unexpected += 1
            problems.append(Problem(plan: plan, what: "caller saw \(outcome), the library \(record.monitorOutcome ?? "none")"))
            return
        }
        switch outcome {
        case "response":
            responses += 1
            // Only a short response can beat its cancel: every other phase waits for it.
            if plan.phase != .completing, plan.phase != .retryWait {
                unexpected += 1
                problems.append(Problem(plan: plan, what: "a response in a phase that never answers, completed \(Self.relative(record)) the cancel"))
            }
        case "cancelled":
            cancelled += 1
            guard let cancelledAt = record.cancelledAt, let completedAt = record.completedAt, completedAt >= cancelledAt else {
                unexpected += 1
                problems.append(Problem(plan: plan, what: "cancelled without a cancel before it"))
                return
            }
            let latency = completedAt - cancelledAt
            latencies.append(latency)
            byPhase[plan.phase.rawValue, default: []].append(latency)
            byStyle[plan.style.rawValue, default: []].append(latency)
            byPath[plan.path.rawValue, default: []].append(latency)
        default:
            unexpected += 1
            problems.append(Problem(
                plan: plan,
                what: "unexpected outcome \(outcome): gate \(record.isGateReached ? "reached" : "not reached"),"
                    + " completed \(Self.relative(record)) the cancel"))
        }
    }

    /// How long before or after its cancel call a request completed.
    private static func relative(_ record: StormLedger.Record) -> String {
        guard let cancelledAt = record.cancelledAt, let completedAt = record.completedAt else { return "with no" }
        return completedAt >= cancelledAt
            ? "\(LatencySummary.format(Double(completedAt - cancelledAt) / 1e6)) ms after"
            : "\(LatencySummary.format(Double(cancelledAt - completedAt) / 1e6)) ms before"
    }

    /// Nothing lost, duplicated or unexpected.
    var isClean: Bool { lost == 0 && duplicates == 0 && problems.isEmpty }

    /// The figures as `key=value` words.
    var summary: String {
        "completions=\(completions) lost=\(lost) duplicates=\(duplicates) unexpected=\(unexpected)"
            + " responses=\(responses) cancelled=\(cancelled) \(LatencySummary(nanoseconds: latencies))"
    }

    /// Latency by phase, style and path, and the first problems.
    func printDetails() {
        for (kind, groups) in [("phase", byPhase), ("style", byStyle), ("path", byPath)] {
            for (name, values) in groups.sorted(by: { $0.key < $1.key }) {
                print("storm \(kind)=\(name) cancelled=\(values.count) \(LatencySummary(nanoseconds: values))")
            }
        }
        for problem in problems.prefix(20) { print(problem) }
    }
}
