import Dispatch
import Foundation
import Synchronization

/// A child process of this executable, started with `posix_spawn` (not Foundation's `Process`,
/// see the tests' `SpawnedChild`), its standard input `/dev/null`, its standard error this
/// process's, and its standard output read line by line on a thread of its own as it arrives.
final class StormChild: Sendable {
    /// The child's process id.
    let pid: pid_t
    /// The complete lines it printed so far, and whether its output ended.
    private let output = Mutex<(lines: [String], ended: Bool)>(([], false))
    /// Signalled once, at its first complete line or at the end of its output.
    private let firstLineOrEnd = DispatchSemaphore(value: 0)
    /// Signalled at the end of its output.
    private let outputEnded = DispatchSemaphore(value: 0)

    /// Starts this executable with `arguments`.
    init(_ arguments: [String]) throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // Neither end reaches a child (`dup2` clears the flag on the copy that becomes its stdout).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(ends[1])
        guard spawned == 0 else {
            close(ends[0])
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
        }
        self.pid = pid
        let descriptor = ends[0]
        Thread.detachNewThread { [self] in readLines(from: descriptor) }
    }

    /// Waits up to `timeout` seconds for its first line; `false` when its output ended first or
    /// the time ran out.
    func waitForFirstLine(timeout: Double) -> Bool {
        guard firstLineOrEnd.wait(timeout: .now() + timeout) == .success else { return false }
        firstLineOrEnd.signal()  // for a later waiter
        return output.withLock { !$0.lines.isEmpty }
    }

    /// The complete lines it printed so far.
    var lines: [String] { output.withLock { $0.lines } }

    /// Whether its output ended: it exited (or closed its standard output).
    var hasEnded: Bool { output.withLock { $0.ended } }

    /// Sends it `SIGKILL`.
    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// Waits until it exited and its output was read to the end; its exit status, or the number of
    /// the signal that ended it as `-signal`, and every line it printed.
    func waitForExit() -> (status: Int32, lines: [String]) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        outputEnded.wait()
        let signal = status & 0x7f
        return (signal == 0 ? (status >> 8) & 0xff : -signal, output.withLock { $0.lines })
    }

    private func readLines(from descriptor: Int32) {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 14)
        var signalled = false
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                output.withLock { $0.lines.append(line) }
                if !signalled {
                    signalled = true
                    firstLineOrEnd.signal()
                }
            }
        }
        close(descriptor)
        output.withLock { $0.ended = true }
        if !signalled { firstLineOrEnd.signal() }
        outputEnded.signal()
    }
}
