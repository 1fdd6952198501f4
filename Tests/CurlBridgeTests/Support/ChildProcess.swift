import Foundation

/// Runs `executable` with `arguments` to completion and returns its exit status and standard output.
///
/// The wait happens on a thread of its own: blocking one of the few cooperative threads (two on a
/// 2-core machine) would stall every other test's tasks meanwhile.
func runChildProcess(_ executable: URL, _ arguments: [String]) async throws -> (status: Int32, output: Data) {
    try await onWorkerThread {
        Result { () throws -> (status: Int32, output: Data) in
            // Not Foundation's `Process`, whose `run()` can crash the test process (see `SpawnedChild`).
            let child = try SpawnedChild(executable, arguments, capturingError: false)
            let output = try readToEnd(child.output)
            return (child.waitUntilExit(), output)
        }
    }.get()
}

/// Runs a `curl` command line (from `curlDescription`) with bash, quietly, and returns what it printed.
func runCurlCommand(_ command: String) async throws -> (status: Int32, output: Data) {
    try await runChildProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", command + " --silent --show-error"])
}

/// Reads `handle` to its end, retrying reads a signal interrupted: `readDataToEndOfFile()`
/// crashes on `EINTR` (its `try!`), which a child that runs for seconds makes likely.
func readToEnd(_ handle: FileHandle) throws -> Data {
    var data = Data()
    while true {
        do {
            guard let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty else { return data }
            data.append(chunk)
        } catch let error as NSError where (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(EINTR) {
            continue
        }
    }
}
