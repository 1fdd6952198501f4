import CurlBridgeTestServer
import Foundation

/// One request of the interleaving test and what happens around it, drawn from a seed: a style,
/// a verb, what the server does, and a disruption — a cancel, `cancelAll`, a shutdown or a
/// timeout — at a random moment. Schedule `index` of seed `seed` is drawn from those two alone,
/// so any one replays on its own (`INTERLEAVING_SEED=seed INTERLEAVING_ONLY=index`).
struct InterleavingSchedule: Sendable, CustomStringConvertible {
    /// What the request does.
    enum Verb: String, CaseIterable, Sendable {
        case send, download, stream, upload
    }

    /// What the server does with it.
    enum Scenario: String, CaseIterable, Sendable {
        /// Answers within 20 ms: a cancel races the completion.
        case quick
        /// Answers after a minute (a stream's head at once, its body after a minute): only a
        /// cancel or the total timeout ends it.
        case blocked
        /// `503`, then a `Retry-After` of a minute before the second attempt: only a cancel, a
        /// shutdown or the total timeout ends the wait.
        case retryWait
        /// `503`, then `200` after a backoff of at most 20 ms.
        case retryQuick
        /// A redirect, then a quick answer.
        case redirect
        /// Never answers (a stream: stalls after its head): the idle timeout ends it.
        case stalled
    }

    /// What happens to the request while it runs.
    enum Disruption: Sendable, Equatable {
        case none
        /// Cancelled through the style's own path, this many milliseconds after it started.
        case cancel(afterMilliseconds: Int)
        /// `Transport.cancelAll()`, then.
        case cancelAll(afterMilliseconds: Int)
        /// `Transport.shutdown()`, then.
        case shutdown(afterMilliseconds: Int)
        /// `cancelAll()` and `shutdown()` together, then: an immediate stop.
        case stop(afterMilliseconds: Int)
        /// A total timeout of this many milliseconds.
        case totalTimeout(milliseconds: Int)

        /// When the disruption comes, if it is one that comes.
        var delay: Int? {
            switch self {
            case .cancel(let delay), .cancelAll(let delay), .shutdown(let delay), .stop(let delay): delay
            case .none, .totalTimeout: nil
            }
        }
    }

    let index: Int
    let style: ClientStyle
    let verb: Verb
    let scenario: Scenario
    let disruption: Disruption
    /// Over TLS (HTTP/2) rather than plain HTTP/1.1.
    let isSecure: Bool
    /// The server's delay (quick answers) or the backoff (quick retries), in milliseconds.
    let quickDelay: Int
    /// The idle timeout of a stalled request, in milliseconds.
    let idleTimeout: Int

    /// The key the server counts the request's arrivals under.
    var countKey: String { "interleave-\(index)-\(quickDelay)-\(idleTimeout)" }

    var description: String {
        "\(style.rawValue) \(verb.rawValue) \(scenario.rawValue) \(disruption) \(isSecure ? "h2" : "h1") "
            + "quickDelay=\(quickDelay)ms idle=\(idleTimeout)ms"
    }

    /// Schedule `index` of `seed`.
    static func draw(seed: UInt64, index: Int) -> InterleavingSchedule {
        var random = SeededGenerator(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        let scenario = Scenario.allCases.randomElement(using: &random)!
        let idleTimeout = Int.random(in: 150...400, using: &random)
        return InterleavingSchedule(
            index: index, style: ClientStyle.allCases.randomElement(using: &random)!,
            verb: Verb.allCases.randomElement(using: &random)!, scenario: scenario,
            disruption: disruption(for: scenario, idleTimeout: idleTimeout, using: &random),
            isSecure: Bool.random(using: &random), quickDelay: Int.random(in: 0...20, using: &random),
            idleTimeout: idleTimeout)
    }

    /// A disruption that can end `scenario`, or race it.
    private static func disruption(for scenario: Scenario, idleTimeout: Int, using random: inout SeededGenerator) -> Disruption {
        let soon = Int.random(in: 0...150, using: &random)
        switch scenario {
        case .quick, .retryQuick, .redirect:
            // Racing the completion: before, during or after it.
            let around = Int.random(in: 0...60, using: &random)
            return [.none, .cancel(afterMilliseconds: around), .cancelAll(afterMilliseconds: around),
                    .shutdown(afterMilliseconds: around), .stop(afterMilliseconds: around)].randomElement(using: &random)!
        case .blocked:
            return [.cancel(afterMilliseconds: soon), .cancelAll(afterMilliseconds: soon), .stop(afterMilliseconds: soon),
                    .totalTimeout(milliseconds: Int.random(in: 100...400, using: &random))].randomElement(using: &random)!
        case .retryWait:
            return [.cancel(afterMilliseconds: soon), .cancelAll(afterMilliseconds: soon), .shutdown(afterMilliseconds: soon),
                    .stop(afterMilliseconds: soon), .totalTimeout(milliseconds: Int.random(in: 100...400, using: &random))]
                .randomElement(using: &random)!
        case .stalled:
            let around = Int.random(in: 0...(2 * idleTimeout), using: &random)
            return [.none, .cancel(afterMilliseconds: around), .cancelAll(afterMilliseconds: around)].randomElement(using: &random)!
        }
    }
}
