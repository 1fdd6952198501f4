import Foundation
import Testing

/// `SpawnedChild`, which starts every child process of the tests in place of Foundation's `Process`.
struct SpawnedChildTests {
    /// Runs `/bin/sh -c script` with its stderr captured; what it printed and how it ended.
    private func shell(_ script: String) async throws -> (status: Int32, output: String, error: String) {
        try await onWorkerThread {
            Result { () throws -> (Int32, String, String) in
                let child = try SpawnedChild(URL(fileURLWithPath: "/bin/sh"), ["-c", script], capturingError: true)
                let error = child.error
                let errorText = Thread.detachNewThreadReadingToEnd(error)
                let output = try readToEnd(child.output)
                let status = child.waitUntilExit()
                return (status, String(decoding: output, as: UTF8.self), errorText())
            }
        }.get()
    }

    @Test func theChildHasOnlyItsStandardDescriptorsAndStdinIsEmpty() async throws {
        // A descriptor the test process has open (and every other: sockets, pipes) must not reach the child.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/zero"))
        defer { try? file.close() }
        let run = try await shell("ls /proc/$$/fd; cat")
        #expect(run.status == 0)
        #expect(run.output.split(separator: "\n") == ["0", "1", "2"])
    }

    @Test func statusIsTheExitCodeOrTheSignalAndStderrIsKeptApart() async throws {
        let exited = try await shell("echo out; echo err >&2; exit 3")
        #expect(exited.status == 3)
        #expect(exited.output == "out\n")
        #expect(exited.error == "err\n")
        let killed = try await shell("kill -KILL $$")
        #expect(killed.status == SIGKILL)
    }
}

extension Thread {
    /// Reads `handle` to its end on a new thread; the returned function waits for the text.
    fileprivate static func detachNewThreadReadingToEnd(_ handle: FileHandle?) -> () -> String {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var text = ""  // written before the signal, read after the wait
        Thread {
            text = String(decoding: handle.flatMap { try? readToEnd($0) } ?? Data(), as: UTF8.self)
            done.signal()
        }.start()
        return {
            done.wait()
            return text
        }
    }
}
