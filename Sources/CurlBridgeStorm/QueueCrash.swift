import CurlBridgeTestServer
import Foundation

/// `CurlBridgeStorm queue-crash`: the crash proof of ``DownloadQueue``. Against an embedded server,
/// a child (`queue-child`) downloads `files` files of `size` bytes through a queue on one state
/// directory; it is killed with `SIGKILL` `kills` times and restarted each time, then run once
/// more to the end. Every file must then have the SHA-256 of the resource, and the bytes the
/// server sent beyond the files' (fetched again after a kill) are set against the checkpoint
/// interval (``QueueCrashReport``).
///
/// When to kill is drawn from the seed as a number of bytes the child writes into the output
/// directory beyond what its journal kept: uniform up to twice its fair share of what is left
/// (at most half of it), so the kills spread over the whole download and land while it runs,
/// however fast the machine. (Not bytes the server sent: on loopback the kernel's socket buffers
/// take tens of MiB per connection before the child has written any.)
struct QueueCrash {
    struct Options {
        var seed: UInt64
        var kills = 100
        var files = 4
        var size = 256 << 20
        var checkpointInterval: Int64 = 4 << 20
        /// Downloads the child's queue runs at once: each can lose up to an interval to a kill.
        var concurrency = 1
    }

    /// How long a child may take to open its queue and print its recovery line.
    static let openingLimit = 120.0

    let options: Options

    /// Runs the kills and the last run, prints the report; returns the exit status (0 when every
    /// check held).
    func run() throws -> Int32 {
        let started = Date()
        print("queue-crash seed=\(options.seed) (replay the kill points with --seed \(options.seed))")
        let server = try TestServer.startAndWait()
        defer { try? server.shutdownAndWait() }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("curlbridge-queue-crash-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let output = scratch.appendingPathComponent("out")
        let keys = (0..<options.files).map { "queue-crash-\(getpid())-\($0)" }
        let served = { keys.reduce(0) { $0 + TestServer.bytesServed(key: $1) } }
        let childArguments = [
            "queue-child", "--state", scratch.appendingPathComponent("state").path,
            "--out", output.path,
            "--interval", String(options.checkpointInterval), "--concurrency", String(options.concurrency),
        ] + keys.map { server.httpURL.absoluteString + "resource/\(options.size)?count=\($0)" }

        var random = SeededGenerator(seed: options.seed)
        var runs: [QueueCrashReport.Run] = []
        var mark = served()
        for index in 0...options.kills {
            let child = try StormChild(childArguments)
            guard child.waitForFirstLine(timeout: Self.openingLimit) else {
                child.kill()
                let (status, lines) = child.waitForExit()
                print("FAIL: child \(index) printed no recovery line (status \(status)):\n" + lines.joined(separator: "\n"))
                return 1
            }
            let isKilled = index < options.kills
            if isKilled {
                let kept = child.lines.first.flatMap(RecoveryLine.init)?.kept ?? 0
                let target = killPoint(remaining: Int64(options.files * options.size) - kept, killsLeft: options.kills - index, &random)
                while !child.hasEnded, Self.bytesOnDisk(in: output) < kept + target { usleep(500) }
                child.kill()
            }
            let (status, lines) = child.waitForExit()
            let now = isKilled ? Self.settled(served) : served()
            runs.append(QueueCrashReport.Run(status: status, lines: lines, served: Int64(now - mark), wasKilled: isKilled))
            mark = now
        }
        let report = QueueCrashReport(options: options, runs: runs, output: output, seconds: Date().timeIntervalSince(started))
        let failures = report.printAndCheck()
        if failures.isEmpty {
            try? FileManager.default.removeItem(at: scratch)
        } else {
            print("the state and files are kept in \(scratch.path)")
        }
        return failures.isEmpty ? 0 : 1
    }

    /// The bytes to let the child write before the kill: uniform up to twice `remaining` shared
    /// by this kill, the ones left after it and the last run, and at most half of `remaining`,
    /// so that the child cannot finish first.
    private func killPoint(remaining: Int64, killsLeft: Int, _ random: inout SeededGenerator) -> Int64 {
        let share = max(0, remaining) * 2 / Int64(killsLeft + 1)
        return min(Int64.random(in: 0...share, using: &random), remaining / 2)
    }

    /// The bytes of the files in `directory`, partial ones included.
    private static func bytesOnDisk(in directory: URL) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.reduce(0) { total, name in
            var status = stat()
            return total + (stat(directory.appendingPathComponent(name).path, &status) == 0 ? Int64(status.st_size) : 0)
        }
    }

    /// The server's count once it stops moving: a killed child's connections are still being
    /// written to until the server sees them reset; their bytes belong to the run killed.
    private static func settled(_ served: () -> Int) -> Int {
        var last = served()
        for _ in 0..<100 {
            usleep(10_000)
            let now = served()
            if now == last { break }
            last = now
        }
        return last
    }
}
