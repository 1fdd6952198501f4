import Foundation

/// The figures and the verdict of a `queue-crash` run: the files whole and with the resource's
/// SHA-256, nothing lost, and what each kill cost in bytes fetched again.
struct QueueCrashReport {
    /// One child process.
    struct Run {
        /// Its exit status, or minus the signal that ended it.
        var status: Int32
        /// What it printed.
        var lines: [String]
        /// Body bytes the server sent from its start to the next child's.
        var served: Int64
        /// Whether the parent killed it (every run but the last).
        var wasKilled: Bool

        var recovery: RecoveryLine? { lines.first.flatMap(RecoveryLine.init) }
        var downloads: [DownloadLine] { lines.compactMap(DownloadLine.init) }
    }

    /// What a kill may cost beyond the checkpoint interval of each running download: the write
    /// that crosses the interval and what the library holds while the checkpoint is journaled.
    static let slack: Int64 = 1 << 20

    let options: QueueCrash.Options
    let runs: [Run]
    /// The directory the files are in.
    let output: URL
    let seconds: Double

    /// Prints the figures and returns why the run failed, if it did (printed too).
    func printAndCheck() -> [String] {
        var failures = checkFiles()
        let fileBytes = Int64(options.files * options.size)
        let served = runs.reduce(0) { $0 + $1.served }
        let killed = runs.filter(\.wasKilled)
        // Kill k's costs: the bytes past the checkpoint that the next child's opening threw away,
        // and the bytes served meanwhile that did not become durable (those plus the bytes in flight).
        var discarded: [Int64] = []
        var refetched: [Int64] = []
        for (index, (run, next)) in zip(runs, runs.dropFirst()).enumerated() where run.wasKilled {
            guard let opened = run.recovery, let reopened = next.recovery else { continue }
            discarded.append(reopened.discarded)
            refetched.append(run.served - (reopened.kept - opened.kept))
            print(
                "queue-crash kill \(index): kept \(opened.kept) → \(reopened.kept), served \(run.served), re-fetched \(refetched.last!),"
                    + " discarded \(reopened.discarded), rejoined \(reopened.rejoined), finished on opening \(reopened.finishedOnOpening)")
        }
        let limit = Int64(min(options.concurrency, options.files)) * options.checkpointInterval + Self.slack
        if let worst = discarded.max(), worst > limit {
            failures.append("a kill discarded \(worst) bytes, over the limit of \(limit)")
        }
        if served < fileBytes { failures.append("the server sent \(served) bytes, fewer than the files' \(fileBytes)") }
        for (index, run) in runs.enumerated() where run.downloads.contains(where: { $0.state == "failed" }) {
            failures.append("run \(index) has a failed download:\n" + run.lines.joined(separator: "\n"))
        }
        let missed = killed.enumerated().filter { $0.element.status != -SIGKILL }
        for (index, run) in missed where run.status != 0 {
            failures.append("run \(index) exited with status \(run.status) before its kill")
        }
        let finishedOnOpening = runs.compactMap(\.recovery).reduce(0) { $0 + $1.finishedOnOpening }
        let unreported = runs.last?.downloads.filter { $0.sha256 == nil }.count ?? 0
        let lastExtra = runs.last.flatMap { run in run.recovery.map { run.served - (fileBytes - $0.kept) } } ?? 0

        print("queue-crash files: \(options.files) × \(options.size) bytes = \(mebibytes(fileBytes)), interval \(mebibytes(options.checkpointInterval)), concurrency \(options.concurrency)")
        print("queue-crash served: \(served) bytes for \(fileBytes) of files: \(served - fileBytes) re-fetched (\(mebibytes(served - fileBytes))) over \(killed.count) kills; the last run fetched \(lastExtra) more than it needed")
        print("queue-crash re-fetched per kill (bytes served that did not become durable): mean \(mebibytes(mean(refetched))), max \(mebibytes(refetched.max() ?? 0))")
        print("queue-crash discarded per kill (partial-file bytes past the last checkpoint): mean \(mebibytes(mean(discarded))), max \(mebibytes(discarded.max() ?? 0)), limit \(mebibytes(limit))")
        let inFlight = zip(refetched, discarded).map { $0 - $1 }
        let receiveBuffers = (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_rmem", encoding: .utf8))?.split(separator: "\t").last
        print(
            "queue-crash in flight per kill (re-fetched but never in the file: socket buffers, curl's): mean \(mebibytes(mean(inFlight))),"
                + " max \(mebibytes(inFlight.max() ?? 0)); a TCP receive buffer grows up to \(receiveBuffers.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?") bytes here (tcp_rmem)")
        print("queue-crash kills before any byte: \(killed.filter { $0.served == 0 }.count); kills that found the child done: \(missed.count); finished on opening: \(finishedOnOpening); digests the queue did not report: \(unreported)")
        for failure in failures { print("FAIL: \(failure)") }
        print(
            "queue-crash kills=\(killed.count) files=\(options.files) fileBytes=\(fileBytes) served=\(served) refetched=\(served - fileBytes)"
                + " refetchedPerKillMean=\(mean(refetched)) refetchedPerKillMax=\(refetched.max() ?? 0)"
                + " discardedPerKillMean=\(mean(discarded)) discardedPerKillMax=\(discarded.max() ?? 0) discardedLimit=\(limit)"
                + " inFlightPerKillMean=\(mean(inFlight)) inFlightPerKillMax=\(inFlight.max() ?? 0)"
                + " killsBeforeAnyByte=\(killed.filter { $0.served == 0 }.count) missedKills=\(missed.count)"
                + " finishedOnOpening=\(finishedOnOpening) unreportedDigests=\(unreported)"
                + " seconds=\(String(format: "%.1f", seconds)) ok=\(failures.isEmpty ? 1 : 0)")
        return failures
    }

    /// The last run's verdict and every file against the resource's digest.
    private func checkFiles() -> [String] {
        guard let last = runs.last else { return ["no run"] }
        var failures: [String] = []
        if last.status != 0 { failures.append("the last run exited with status \(last.status):\n" + last.lines.joined(separator: "\n")) }
        let reported = Dictionary(last.downloads.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        let expected = FileDigests.resource(size: options.size, version: 1)
        for index in 0..<options.files {
            let name = QueueChild.fileName(index)
            guard let found = FileDigests.file(output.appendingPathComponent(name)) else {
                failures.append("\(name) is missing")
                continue
            }
            if found.bytes != Int64(options.size) { failures.append("\(name) has \(found.bytes) bytes, not \(options.size)") }
            if found.sha256 != expected { failures.append("\(name) has SHA-256 \(found.sha256), not \(expected)") }
            if let claimed = reported[name]?.sha256, claimed != expected {
                failures.append("the queue says \(name) has SHA-256 \(claimed), not \(expected)")
            }
            if reported[name]?.state != "finished" { failures.append("the queue says \(name) is \(reported[name]?.state ?? "unknown")") }
        }
        return failures
    }

    private func mean(_ values: [Int64]) -> Int64 {
        values.isEmpty ? 0 : values.reduce(0, +) / Int64(values.count)
    }

    private func mebibytes(_ bytes: Int64) -> String {
        String(format: "%.2f MiB", Double(bytes) / 1_048_576)
    }
}
