import Foundation
import Testing

/// An executable of this package built beside the test binary (`swift build` builds them all),
/// run as a child process: storms and exits need a process of their own, both for counts of
/// descriptors, threads and handles that no other test disturbs, and to survive an `exit()`.
struct BuiltExecutable {
    let url: URL

    /// The executable `name`; fails the test if it was not built.
    init(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map { $0.appendingPathComponent(name) }
        url = try #require(
            candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
            "build the \(name) product first (swift build)", sourceLocation: sourceLocation)
    }

    /// Runs it with `arguments` and returns its exit status and output lines.
    func run(_ arguments: String...) async throws -> (status: Int32, lines: [String]) {
        try await run(arguments)
    }

    /// Runs it with `arguments` and returns its exit status and output lines.
    func run(_ arguments: [String]) async throws -> (status: Int32, lines: [String]) {
        let (status, output) = try await runChildProcess(url, arguments)
        return (status, String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init))
    }
}

/// The `key=value` words of the first line starting with `prefix`, as integers where they are.
func reportFields(_ lines: [String], prefix: String) -> [String: Double]? {
    guard let line = lines.last(where: { $0.hasPrefix(prefix) }) else { return nil }
    var fields: [String: Double] = [:]
    for word in line.split(separator: " ") {
        let parts = word.split(separator: "=", maxSplits: 1)
        if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
    }
    return fields
}
