import NIOConcurrencyHelpers
import Synchronization

/// The fault server's records, by key, written from its event loops and read by tests.
final class FaultLedger: Sendable {
    private let records = NIOLockedValueBox<[String: FaultRecord]>([:])
    private let connections = Synchronization.Atomic<Int>(0)
    private let open = Synchronization.Atomic<Int>(0)

    /// Connections open now (accepted and not yet closed).
    var openConnections: Int { open.load(ordering: .relaxed) }

    /// Notes that a connection opened, or (`opened` false) closed.
    func connection(opened: Bool) {
        open.add(opened ? 1 : -1, ordering: .relaxed)
    }

    /// A number for a new connection, from 1.
    func nextConnection() -> Int {
        connections.add(1, ordering: .relaxed).newValue
    }

    /// Notes a request read in full.
    func received(_ request: FaultRequest) {
        let entry = FaultRecord.Request(
            method: request.method, path: request.path, bodyLength: request.body.count,
            connection: request.connection, indexOnConnection: request.indexOnConnection)
        records.withLockedValue { $0[request.key, default: FaultRecord()].requests.append(entry) }
    }

    /// Notes that the client closed a connection while the server was answering `key`, after
    /// `bytesSent` response bytes.
    func closedByClient(key: String, bytesSent: Int) {
        records.withLockedValue {
            $0[key, default: FaultRecord()].closedByClient += 1
            $0[key, default: FaultRecord()].bytesSentBeforeClientClose += bytesSent
        }
    }

    /// The record of `key` (empty if nothing came).
    func record(key: String) -> FaultRecord {
        records.withLockedValue { $0[key] ?? FaultRecord() }
    }
}
