@testable import CurlBridge
import Crypto
import Foundation
import Synchronization
import Testing

/// The bytes of the server's `/resource/N?version=V`: byte `i` is `UInt8((i + V) % 251)`.
func resourceBytes(count: Int, version: Int = 1) -> Data {
    Data((0..<count).map { UInt8(($0 + version) % 251) })
}

/// Lowercase hex SHA-256 of `data`.
func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

/// A fresh directory under the temporary directory, removed by ``remove()``.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("curlbridge-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names of the files in the directory, hidden ones included.
    var contents: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Progress reports as they arrived.
final class ProgressLog: Sendable {
    private let reports = Mutex<[TransferProgress]>([])

    /// The closure to hand to a client.
    var record: @Sendable (TransferProgress) -> Void {
        { progress in self.reports.withLock { $0.append(progress) } }
    }

    var all: [TransferProgress] { reports.withLock { $0 } }
}

/// Waits (at most 20 s) for `condition`, checking every 10 ms; fails the test with `what` if it
/// never holds. A condition, not a guess at how long a loaded machine needs.
func waitFor(_ what: String, _ condition: @Sendable () -> Bool) async throws {
    for _ in 0..<2000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("timed out after 20 s waiting for \(what)")
    throw WaitTimedOut()
}

/// A condition did not hold in time.
struct WaitTimedOut: Error {}

extension Transport {
    /// Waits (at most 20 s) until no request is in flight.
    func waitUntilIdle() async throws {
        try await waitFor("the transport to be idle") { self.inFlightCount == 0 }
    }
}
