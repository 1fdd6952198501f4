@testable import CurlBridge
import Crypto
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// The bytes of the server's `/resource/N?version=V`: byte `i` is `UInt8((i + V) % 251)`.
func resourceBytes(count: Int, version: Int = 1) -> Data {
    resourceBytes(0..<count, version: version)
}

/// Bytes `offsets` of version `version` of a `/resource`.
func resourceBytes(_ offsets: Range<Int>, version: Int) -> Data {
    TestServer.patternBody(offsets, version: version)
}

/// Lowercase hex SHA-256 of `data`, as ``UploadSinkReply/sha256`` has it.
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

/// Waits until `condition` holds (see ``poll(within:until:then:)``); fails the test, naming
/// `what`, if it still does not after a minute — a hang guard, far beyond any healthy wait.
func waitFor(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @Sendable () -> Bool
) async throws {
    let met = await poll(within: .seconds(60), until: condition)
    try #require(met, "timed out waiting for \(what)", sourceLocation: sourceLocation)
}

extension Transport {
    /// Waits until no request is in flight.
    func waitUntilIdle(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await waitFor("the transport to be idle", sourceLocation: sourceLocation) { self.inFlightCount == 0 }
    }
}
