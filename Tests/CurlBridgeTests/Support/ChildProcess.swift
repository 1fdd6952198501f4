import Foundation

/// Runs `executable` with `arguments` to completion and returns its exit status and standard output.
func runChildProcess(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

/// Runs a `curl` command line (from `curlDescription`) with bash, quietly, and returns what it printed.
func runCurlCommand(_ command: String) throws -> (status: Int32, output: Data) {
    try runChildProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", command + " --silent --show-error"])
}
