import NIOConcurrencyHelpers

/// What an ``H2FaultServer``'s connections share, behind one lock: the stream records, the
/// connection count, the refusals still to make and the CONTINUATION frames flooded.
final class H2FaultLedger: Sendable {
    private struct Entries {
        var connections = 0
        var streams: [H2StreamRecord] = []
        var refusalsLeft = 0
        var continuationFrames = 0
    }

    private let entries: NIOLockedValueBox<Entries>

    /// A ledger for a listener that will refuse `refusals` streams.
    init(refusals: Int) {
        entries = NIOLockedValueBox(Entries(refusalsLeft: refusals))
    }

    /// Counts a newly accepted connection and returns its index.
    func acceptConnection() -> Int {
        entries.withLockedValue { entries in
            entries.connections += 1
            return entries.connections - 1
        }
    }

    /// Connections accepted so far.
    var connections: Int { entries.withLockedValue { $0.connections } }

    /// Every stream record, in the order the server decided on them.
    var streams: [H2StreamRecord] { entries.withLockedValue { $0.streams } }

    /// CONTINUATION frames of a flood written to the client so far.
    var continuationFrames: Int { entries.withLockedValue { $0.continuationFrames } }

    /// Appends a stream record.
    func record(_ stream: H2StreamRecord) {
        entries.withLockedValue { $0.streams.append(stream) }
    }

    /// Whether the next stream is to be refused; counts the refusal.
    func takeRefusal() -> Bool {
        entries.withLockedValue { entries in
            guard entries.refusalsLeft > 0 else { return false }
            entries.refusalsLeft -= 1
            return true
        }
    }

    /// Adds `count` flooded CONTINUATION frames and returns the total.
    func addContinuationFrames(_ count: Int) -> Int {
        entries.withLockedValue { entries in
            entries.continuationFrames += count
            return entries.continuationFrames
        }
    }
}
