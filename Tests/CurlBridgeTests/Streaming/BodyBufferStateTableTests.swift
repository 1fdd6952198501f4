@testable import CurlBridge
import Foundation
import Testing

/// Every event in every state of ``BodyBufferState``, the impossible pairs included (a piece, a
/// head or a handle after the end): the state it leads to and what it tells the buffer to do,
/// with plain tokens for the handle and the waiting task, and no I/O. Watermarks of 8 and 4
/// bytes, pieces of 4.
@Suite("Stream buffer state: every (state, event) pair")
struct BodyBufferStateTableTests {
    typealias State = BodyBufferState<Int, Int>

    /// The states, each reached by real events from an empty buffer whose consumer set an
    /// arrival handler.
    enum StateName: String, CaseIterable, CustomStringConvertible {
        /// Nothing in, no handle yet.
        case unattached
        /// Cancelled before the handle was known.
        case cancelledUnattached
        /// The handle is known, nothing in.
        case open
        /// A chunk waits, announced.
        case holding
        /// A chunk waits, to be announced when the turn ends.
        case announcing
        /// Full: a piece was refused and the transfer paused.
        case pausedForRoom
        /// Full before the handle was known.
        case pausedUnattached
        /// Paused before the handle was known, and read down since: the handle resumes when known.
        case drainedUnattached
        /// A task waits for an item.
        case taskWaiting
        /// The end is in.
        case ended

        var description: String { rawValue }
    }

    /// The events, each applied as the buffer would.
    enum Event: String, CaseIterable, CustomStringConvertible {
        case attach, attachNone, cancel, piece, turnEnd, head, end, take, taskWaits, arrivalCleared

        var description: String { rawValue }

        /// Applies the event; returns what the state told the buffer to do, by name.
        func apply(to state: inout State) -> [String] {
            switch self {
            case .attach: return Self.names(state.attached(1))
            case .attachNone: return Self.names(state.attached(nil))
            case .cancel: return state.cancelled().map { ["cancel \($0)"] } ?? []
            case .piece: return [BodyBufferStateTableTests.piece(into: &state)]
            case .turnEnd: return Self.names(state.turnEnded())
            case .head: return Self.names(state.headArrived(MachineFixture.head(200)))
            case .end: return Self.names(state.ended(.failure(RequestError(.cancelled, "cancelled"))))
            case .take:
                let (entry, resume) = state.take()
                let taken = switch entry {
                case nil: "none"
                case .head?: "head"
                case .chunk(let chunk)?: "chunk \(chunk.count)"
                case .end?: "end"
                }
                return [taken] + (resume.map { ["resume \($0)"] } ?? [])
            case .taskWaits: return [state.taskWaits(7) ? "ready" : "waits"]
            case .arrivalCleared:
                state.arrivalHandlerSet(nil)
                return []
            }
        }

        private static func names(_ wake: State.Wake) -> [String] {
            (wake.task.map { ["wake task \($0)"] } ?? []) + (wake.onArrival == nil ? [] : ["wake arrival"])
        }

        private static func names(_ attachment: State.Attachment) -> [String] {
            (attachment.cancel.map { ["cancel \($0)"] } ?? []) + (attachment.resumes ? ["resume"] : [])
        }
    }

    /// Where the chunks' buffers come from.
    static let pool = ChunkPool(budget: 1 << 20)

    /// A piece of 4 bytes arriving, with the chunk made when the state asks for one; the step by name.
    static func piece(into state: inout State) -> String {
        let bytes: [UInt8] = [1, 2, 3, 4]
        return bytes.withUnsafeBytes { bytes in
            switch state.pieceArrived(bytes) {
            case .joined: return "joined"
            case .refused: return "refused"
            case .ignored: return "ignored"
            case .startChunk(let capacity):
                var chunk = GatheredChunk(capacity: capacity, from: pool)
                chunk.append(bytes)
                state.chunkStarted(chunk)
                return "startChunk"
            }
        }
    }

    /// A state brought into `name` by real events.
    static func state(_ name: StateName) -> State {
        var state = State(limits: BufferLimits(highWatermark: 8, lowWatermark: 4))
        state.arrivalHandlerSet {}
        switch name {
        case .unattached: break
        case .cancelledUnattached: _ = state.cancelled()
        case .open: _ = state.attached(1)
        case .holding, .announcing:
            _ = state.attached(1)
            _ = piece(into: &state)
            if name == .holding { _ = state.turnEnded() }
        case .pausedForRoom, .pausedUnattached, .drainedUnattached:
            if name == .pausedForRoom { _ = state.attached(1) }
            _ = piece(into: &state)
            _ = piece(into: &state)
            _ = state.turnEnded()
            _ = piece(into: &state)
            if name == .drainedUnattached { _ = state.take() }
        case .taskWaiting:
            _ = state.attached(1)
            _ = state.taskWaits(7)
        case .ended:
            _ = state.attached(1)
            _ = state.ended(.failure(RequestError(.cancelled, "cancelled")))
        }
        return state
    }

    /// Everything the state shows, in one line: phase, handle, cancel, unread bytes, waiting
    /// items, announcement due, waiting task.
    static func snapshot(_ state: State) -> String {
        var words = ["\(state.phase)", state.hasHandle ? "handle" : "nohandle"]
        if state.isCancelled { words.append("cancelled") }
        words.append("\(state.buffered)B")
        if state.hasItem { words.append("items") }
        if state.isAnnouncementDue { words.append("due") }
        if state.hasWaitingTask { words.append("task") }
        return words.joined(separator: " ")
    }

    /// What an event does in a state: the snapshot it leads to and the actions it returns.
    struct Expected: Equatable, CustomStringConvertible {
        var state: String
        var actions: [String] = []

        var description: String { "\(state) \(actions)" }
    }

    /// The expected outcome of `event` in `state`.
    static func expected(_ name: StateName, _ event: Event) -> Expected {
        let unchanged = snapshot(state(name))
        switch (name, event) {
        // The end is for good: nothing but a cancel (recorded, with no handle to cancel) and the
        // consumer's reads changes anything.
        case (.ended, .cancel): return Expected(state: "ended nohandle cancelled 0B items")
        case (.ended, .piece): return Expected(state: unchanged, actions: ["ignored"])
        case (.ended, .take): return Expected(state: unchanged, actions: ["end"])
        case (.ended, .taskWaits): return Expected(state: unchanged, actions: ["ready"])
        case (.ended, _): return Expected(state: unchanged)

        // A handle attached: cancelled if a cancel came first, resumed if read down meanwhile.
        case (.unattached, .attach): return Expected(state: "open handle 0B")
        case (.cancelledUnattached, .attach): return Expected(state: "open handle cancelled 0B", actions: ["cancel 1"])
        case (.pausedUnattached, .attach): return Expected(state: "pausedForRoom handle 8B items")
        case (.drainedUnattached, .attach): return Expected(state: "open handle 0B", actions: ["resume"])
        case (.drainedUnattached, .attachNone): return Expected(state: "open nohandle 0B", actions: ["resume"])
        case (_, .attach), (_, .attachNone): return Expected(state: unchanged)

        // A cancel: the handle now, or none yet.
        case (.unattached, .cancel): return Expected(state: "open nohandle cancelled 0B")
        case (.cancelledUnattached, .cancel): return Expected(state: unchanged)
        case (.open, .cancel): return Expected(state: "open handle cancelled 0B", actions: ["cancel 1"])
        case (.holding, .cancel): return Expected(state: "open handle cancelled 4B items", actions: ["cancel 1"])
        case (.announcing, .cancel): return Expected(state: "open handle cancelled 4B items due", actions: ["cancel 1"])
        case (.pausedForRoom, .cancel): return Expected(state: "pausedForRoom handle cancelled 8B items", actions: ["cancel 1"])
        case (.pausedUnattached, .cancel): return Expected(state: "pausedForRoom nohandle cancelled 8B items")
        case (.drainedUnattached, .cancel): return Expected(state: "pausedForRoom nohandle cancelled 0B")
        case (.taskWaiting, .cancel): return Expected(state: "open handle cancelled 0B task", actions: ["cancel 1"])

        // A piece joins an untaken chunk, starts one (announced at the turn's end), or is refused when full.
        case (.unattached, .piece): return Expected(state: "open nohandle 4B items due", actions: ["startChunk"])
        case (.cancelledUnattached, .piece): return Expected(state: "open nohandle cancelled 4B items due", actions: ["startChunk"])
        case (.open, .piece): return Expected(state: "open handle 4B items due", actions: ["startChunk"])
        case (.holding, .piece): return Expected(state: "open handle 8B items", actions: ["joined"])
        case (.announcing, .piece): return Expected(state: "open handle 8B items due", actions: ["joined"])
        case (.pausedForRoom, .piece), (.pausedUnattached, .piece): return Expected(state: unchanged, actions: ["refused"])
        case (.drainedUnattached, .piece): return Expected(state: "pausedForRoom nohandle 4B items due", actions: ["startChunk"])
        case (.taskWaiting, .piece): return Expected(state: "open handle 4B items due task", actions: ["startChunk"])

        // The turn's end announces what it put in, once.
        case (.announcing, .turnEnd): return Expected(state: "open handle 4B items", actions: ["wake arrival"])
        case (_, .turnEnd): return Expected(state: unchanged)

        // The head and the end wake the consumer at once; the end lets go of the handle.
        case (.taskWaiting, .head): return Expected(state: "open handle 0B items", actions: ["wake task 7", "wake arrival"])
        case (.announcing, .head): return Expected(state: "open handle 4B items", actions: ["wake arrival"])
        case (.unattached, .head): return Expected(state: "open nohandle 0B items", actions: ["wake arrival"])
        case (.cancelledUnattached, .head): return Expected(state: "open nohandle cancelled 0B items", actions: ["wake arrival"])
        case (.open, .head): return Expected(state: "open handle 0B items", actions: ["wake arrival"])
        case (.drainedUnattached, .head): return Expected(state: "pausedForRoom nohandle 0B items", actions: ["wake arrival"])
        case (.holding, .head), (.pausedForRoom, .head), (.pausedUnattached, .head):
            return Expected(state: unchanged, actions: ["wake arrival"])
        case (.taskWaiting, .end): return Expected(state: "ended nohandle 0B items", actions: ["wake task 7", "wake arrival"])
        case (.cancelledUnattached, .end): return Expected(state: "ended nohandle cancelled 0B items", actions: ["wake arrival"])
        case (.holding, .end), (.announcing, .end): return Expected(state: "ended nohandle 4B items", actions: ["wake arrival"])
        case (.pausedForRoom, .end), (.pausedUnattached, .end): return Expected(state: "ended nohandle 8B items", actions: ["wake arrival"])
        case (_, .end): return Expected(state: "ended nohandle 0B items", actions: ["wake arrival"])

        // The consumer reads: a paused transfer resumes once read down to the low watermark, if its handle is known.
        case (.holding, .take): return Expected(state: "open handle 0B", actions: ["chunk 4"])
        case (.announcing, .take): return Expected(state: "open handle 0B due", actions: ["chunk 4"])
        case (.pausedForRoom, .take): return Expected(state: "open handle 0B", actions: ["chunk 8", "resume 1"])
        case (.pausedUnattached, .take): return Expected(state: "pausedForRoom nohandle 0B", actions: ["chunk 8"])
        case (_, .take): return Expected(state: unchanged, actions: ["none"])

        // A task waits only while nothing is there.
        case (.holding, .taskWaits), (.announcing, .taskWaits), (.pausedForRoom, .taskWaits), (.pausedUnattached, .taskWaits):
            return Expected(state: unchanged, actions: ["ready"])
        case (.taskWaiting, .taskWaits): return Expected(state: unchanged, actions: ["waits"])
        case (_, .taskWaits): return Expected(state: unchanged + " task", actions: ["waits"])

        case (_, .arrivalCleared): return Expected(state: unchanged)
        }
    }

    @Test("each fixture reaches its state", arguments: StateName.allCases)
    func fixture(name: StateName) {
        let expected: [StateName: String] = [
            .unattached: "open nohandle 0B", .cancelledUnattached: "open nohandle cancelled 0B", .open: "open handle 0B",
            .holding: "open handle 4B items", .announcing: "open handle 4B items due",
            .pausedForRoom: "pausedForRoom handle 8B items", .pausedUnattached: "pausedForRoom nohandle 8B items",
            .drainedUnattached: "pausedForRoom nohandle 0B", .taskWaiting: "open handle 0B task", .ended: "ended nohandle 0B items",
        ]
        #expect(Self.snapshot(Self.state(name)) == expected[name])
    }

    @Test("each pair leads where the table says", arguments: StateName.allCases, Event.allCases)
    func pair(name: StateName, event: Event) {
        var state = Self.state(name)
        let actions = event.apply(to: &state)
        #expect(Expected(state: Self.snapshot(state), actions: actions) == Self.expected(name, event))
    }
}
