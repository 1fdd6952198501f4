@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// Every event in every state of ``DownloadBodyState`` (a download's body): the state it leads to
/// — phase and the partial file's counts and facts — and what it asks of the file, with no file.
/// A resource of 8 bytes tagged `"v1"`; pieces of 4 bytes; checkpoints every 4 bytes.
@Suite("Download body state: every (state, event) pair")
struct DownloadBodyStateTableTests {
    /// The states, each reached by real events.
    enum StateName: String, CaseIterable, CustomStringConvertible {
        /// A new partial file, no head yet.
        case fresh
        /// The partial file of resume data holding the first 4 bytes, no head yet.
        case resumed
        /// A 200 came: writing from byte 0.
        case writing
        /// A 206 continued the resumed file.
        case continuing
        /// A 404 came: keeping its body for the error.
        case collecting
        /// Writing, and a write failed for a full disk.
        case diskFull

        var description: String { rawValue }

        /// What the state shows (see ``DownloadBodyStateTableTests/snapshot(_:)``).
        var snapshot: String {
            switch self {
            case .fresh: "awaitingHead r0 w0 f0"
            case .resumed: "awaitingHead r4 w4 f4 validated of8"
            case .writing: "writing r0 w0 f0 validated of8"
            case .continuing: "writing r4 w4 f4 validated of8"
            case .collecting: "collecting0 r0 w0 f0"
            case .diskFull: "writing r0 w0 f0 validated of8 diskFull"
            }
        }
    }

    /// The events, each applied as ``DownloadOperation`` would.
    enum Event: String, CaseIterable, CustomStringConvertible {
        case head200, head200Encoded, head206, head206FromZero, head404, piece, pieceOverLimit, written, writeFailed, startedOver, flushed

        var description: String { rawValue }

        /// Applies the event; returns what the state asked of the file, by name.
        func apply(to state: inout DownloadBodyState) -> String? {
            switch self {
            case .head200: return Self.name(state.headArrived(head(200, [(.contentLength, "8")]), acceptable: true))
            case .head200Encoded:
                return Self.name(state.headArrived(head(200, [(.contentLength, "8"), (.contentEncoding, "gzip")]), acceptable: true))
            case .head206: return Self.name(state.headArrived(head(206, [(.contentRange, "bytes 4-7/8")]), acceptable: true))
            case .head206FromZero: return Self.name(state.headArrived(head(206, [(.contentRange, "bytes 0-7/8")]), acceptable: true))
            case .head404: return Self.name(state.headArrived(head(404, []), acceptable: false))
            case .piece: return Self.name(piece(into: &state, maximum: nil))
            case .pieceOverLimit: return Self.name(piece(into: &state, maximum: 6))
            case .written: return state.pieceWritten(4, checkpointInterval: 4) ? "flush" : "noFlush"
            case .writeFailed: state.writeFailed(diskFull)
            case .startedOver: state.startedOver()
            case .flushed: state.flushedAll()
            }
            return nil
        }

        private func head(_ status: Int, _ fields: [(HTTPField.Name, String)]) -> ResponseHead {
            MachineFixture.head(status, [(.eTag, "\"v1\"")] + fields)
        }

        private func piece(into state: inout DownloadBodyState, maximum: Int64?) -> DownloadBodyState.PieceStep {
            [UInt8](repeating: 7, count: 4).withUnsafeBytes { state.pieceArrived($0, maximum: maximum) }
        }

        private static func name(_ step: DownloadBodyState.HeadStep) -> String {
            switch step {
            case .proceed: "proceed"
            case .startOver: "startOver"
            case .fail(_, let startingOver): startingOver ? "fail startingOver" : "fail"
            }
        }

        private static func name(_ step: DownloadBodyState.PieceStep) -> String {
            switch step {
            case .write: "write"
            case .kept: "kept"
            case .fail(let error): "fail \(error.code)"
            }
        }
    }

    /// A write that failed for a full disk.
    static let diskFull = RequestError(.fileIO, "no space left", underlying: POSIXError(.ENOSPC))

    /// A state brought into `name` by real events.
    static func state(_ name: StateName) -> DownloadBodyState {
        switch name {
        case .fresh: return DownloadBodyState()
        case .resumed:
            return DownloadBodyState(resumedFrom: 4, continuesPartialFile: true, validator: .entityTag("\"v1\""), expectedLength: 8)
        case .writing, .continuing, .collecting, .diskFull:
            var state = Self.state(name == .continuing ? .resumed : .fresh)
            let event: Event = switch name {
            case .continuing: .head206
            case .collecting: .head404
            default: .head200
            }
            _ = event.apply(to: &state)
            if name == .diskFull { _ = Event.writeFailed.apply(to: &state) }
            return state
        }
    }

    /// Everything the state shows, in one line: phase (with an error body's size), resumed-from,
    /// written and flushed bytes, then the facts that hold.
    static func snapshot(_ state: DownloadBodyState) -> String {
        let phase = switch state.phase {
        case .awaitingHead: "awaitingHead"
        case .writing: "writing"
        case .collectingErrorBody(let body): "collecting\(body.count)"
        }
        var words = [phase, "r\(state.resumedFrom)", "w\(state.written)", "f\(state.flushed)"]
        if state.validator != nil { words.append("validated") }
        if state.isContentEncoded { words.append("encoded") }
        if let length = state.expectedLength { words.append("of\(length)") }
        if state.diskFilled { words.append("diskFull") }
        return words.joined(separator: " ")
    }

    /// What an event does in a state.
    struct Expected: Equatable, CustomStringConvertible {
        var state: String
        var action: String?

        var description: String { "\(state) \(action ?? "-")" }
    }

    /// The expected outcome of `event` in `state`.
    static func expected(_ name: StateName, _ event: Event) -> Expected {
        let unchanged = snapshot(state(name))
        let disk = name == .diskFull ? " diskFull" : ""
        // The resumed states hold bytes of an earlier attempt; the others start at byte 0.
        let counts = [.resumed, .continuing].contains(name) ? "r4 w4 f4" : "r0 w0 f0"
        switch (name, event) {
        // A whole resource: written from byte 0, after emptying the file of an earlier attempt's bytes.
        case (.resumed, .head200), (.continuing, .head200): return Expected(state: "writing \(counts) validated of8", action: "startOver")
        case (_, .head200): return Expected(state: "writing \(counts) validated of8\(disk)", action: "proceed")
        case (.resumed, .head200Encoded), (.continuing, .head200Encoded):
            return Expected(state: "writing \(counts) validated encoded of8", action: "startOver")
        case (_, .head200Encoded): return Expected(state: "writing \(counts) validated encoded of8\(disk)", action: "proceed")
        // A 206 continues the file only from its own length; otherwise it is refused, its
        // validator dropped, and a resumed file emptied for the next attempt.
        case (.resumed, .head206): return Expected(state: "writing r4 w4 f4 validated of8", action: "proceed")
        case (.continuing, .head206): return Expected(state: unchanged, action: "proceed")
        case (.fresh, .head206): return Expected(state: "awaitingHead r0 w0 f0", action: "fail")
        case (.collecting, .head206): return Expected(state: "collecting0 r0 w0 f0", action: "fail")
        case (_, .head206): return Expected(state: "writing r0 w0 f0 of8\(disk)", action: "fail")
        case (.resumed, .head206FromZero): return Expected(state: "awaitingHead r4 w4 f4 of8", action: "fail startingOver")
        case (.continuing, .head206FromZero): return Expected(state: "writing r4 w4 f4 of8", action: "fail startingOver")
        case (_, .head206FromZero): return Expected(state: "writing r0 w0 f0 validated of8\(disk)", action: "proceed")
        // An unacceptable status: its body is kept, the file's facts stay.
        case (_, .head404): return Expected(state: unchanged.replacingOccurrences(of: unchanged.prefix { $0 != " " }, with: "collecting0"), action: "proceed")
        // Pieces: written (within the limit, counting resumed bytes), or kept for the error.
        case (.collecting, .piece), (.collecting, .pieceOverLimit): return Expected(state: "collecting4 r0 w0 f0", action: "kept")
        case (_, .piece): return Expected(state: unchanged, action: "write")
        case (.resumed, .pieceOverLimit), (.continuing, .pieceOverLimit): return Expected(state: unchanged, action: "fail bodyTooLarge")
        case (_, .pieceOverLimit): return Expected(state: unchanged, action: "write")
        // Bytes written: a checkpoint is due when the file could be resumed. (Nothing is written
        // while an error body is kept; counted all the same if it were.)
        case (.fresh, .written), (.collecting, .written):
            return Expected(state: unchanged.replacingOccurrences(of: "w0", with: "w4"), action: "noFlush")
        case (_, .written):
            return Expected(state: unchanged.replacingOccurrences(of: "w0", with: "w4").replacingOccurrences(of: "w4 f4", with: "w8 f4"), action: "flush")
        case (.diskFull, .writeFailed): return Expected(state: unchanged)
        case (_, .writeFailed): return Expected(state: unchanged + " diskFull")
        case (_, .startedOver): return Expected(state: unchanged.replacingOccurrences(of: "r4 w4 f4", with: "r0 w0 f0"))
        case (_, .flushed): return Expected(state: unchanged)
        }
    }

    @Test("each fixture reaches its state", arguments: StateName.allCases)
    func fixture(name: StateName) {
        #expect(Self.snapshot(Self.state(name)) == name.snapshot)
    }

    @Test("each pair leads where the table says", arguments: StateName.allCases, Event.allCases)
    func pair(name: StateName, event: Event) {
        let expected = Self.expected(name, event)
        var state = Self.state(name)
        #expect(event.apply(to: &state) == expected.action)
        #expect(Self.snapshot(state) == expected.state)
    }

    @Test("a failure keeps the partial bytes unless it is about the file itself, a full disk excepted")
    func failureKeepsBytes() {
        let writing = Self.state(.writing)
        #expect(writing.failureKeepsBytes(.connectFailed))
        #expect(!writing.failureKeepsBytes(.fileIO))
        #expect(!writing.failureKeepsBytes(.integrityMismatch))
        #expect(Self.state(.diskFull).failureKeepsBytes(.fileIO))
    }
}
