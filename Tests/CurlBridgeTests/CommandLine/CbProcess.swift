import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// The `cb` example tool, built beside the tests (`swift build --build-tests` builds every
/// executable target), run as a child process with its stdout and stderr captured as pipes —
/// neither is a terminal, as when its output is piped.
struct Cb {
    let executable: BuiltExecutable

    init(sourceLocation: SourceLocation = #_sourceLocation) throws {
        executable = try BuiltExecutable("cb", sourceLocation: sourceLocation)
    }

    /// What a run printed, and how it ended.
    struct Run: CustomStringConvertible {
        let status: Int32
        let output: Data
        let error: String

        var text: String { String(decoding: output, as: UTF8.self) }
        var description: String { "exit \(status)\nstdout: \(text.prefix(2000))\nstderr: \(error.prefix(2000))" }
    }

    /// Runs `cb arguments…` to its end; `meanwhile` runs, on the thread that waits, once it has
    /// started (given its process id, to signal it).
    func run(_ arguments: [String], meanwhile: @escaping @Sendable (pid_t) -> Void = { _ in }) async throws -> Run {
        try await Self.run(executable.url, arguments, meanwhile: meanwhile)
    }

    /// Runs `cb arguments…` under a pseudo-terminal (`script` from util-linux, which Debian always
    /// has): stdout and stderr are a terminal, and both arrive in `output` as the terminal got them.
    func runInTerminal(_ arguments: [String]) async throws -> Run {
        let command = ([executable.url.path] + arguments).map(Self.shellQuoted).joined(separator: " ")
        let script = URL(fileURLWithPath: "/usr/bin/script")
        try #require(FileManager.default.isExecutableFile(atPath: script.path), "util-linux's script(1) is needed")
        return try await Self.run(script, ["--quiet", "--return", "--command", command, "/dev/null"])
    }

    private static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs `executable` with both output pipes read to their ends at once (one on a thread of
    /// its own), so a child that fills one while the test reads the other cannot stall.
    private static func run(
        _ executable: URL, _ arguments: [String], meanwhile: @escaping @Sendable (pid_t) -> Void = { _ in }
    ) async throws -> Run {
        try await onWorkerThread {
            Result { () throws -> Run in
                // Not Foundation's `Process`, whose `run()` can crash the test process (see `SpawnedChild`).
                let child = try SpawnedChild(executable, arguments, capturingError: true)
                let errorText = ErrorText()
                let error = child.error
                let readingError = Thread { errorText.set(error.flatMap { try? readToEnd($0) }) }
                readingError.start()
                meanwhile(child.pid)
                let data = try readToEnd(child.output)
                let status = child.waitUntilExit()
                return Run(status: status, output: data, error: errorText.wait())
            }
        }.get()
    }
}

/// Stderr's bytes, handed from the thread that reads them to the one that waits.
private final class ErrorText: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let text = Mutex<String>("")

    func set(_ data: Data?) {
        text.withLock { $0 = String(decoding: data ?? Data(), as: UTF8.self) }
        done.signal()
    }

    func wait() -> String {
        done.wait()
        return text.withLock { $0 }
    }
}
