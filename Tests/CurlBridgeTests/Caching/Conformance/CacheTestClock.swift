import Foundation
import Synchronization

/// The one wall clock of a cache test: the cache ages its entries by it and the origin dates its
/// responses by it (`Server-Now`, `Date`, and date headers given as offsets). The suite's
/// 3-second pauses advance it instead of sleeping, so a run is fast and does not depend on how
/// long the machine takes; neither curl nor the server looks at dates.
final class CacheTestClock: Sendable {
    /// The engine's pause after a request with `pause_after` (test-engine/client/utils.mjs).
    static let pauseAfterRequest: TimeInterval = 3

    private let current: Mutex<Date>

    /// A clock at the real now, in whole seconds, as HTTP-dates are.
    init() {
        current = Mutex(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    }

    /// The current time.
    var now: Date {
        current.withLock { $0 }
    }

    /// The current time in whole milliseconds since 1970, as the origin's `Server-Now` gives it.
    var millisecondsSince1970: Int64 {
        Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Moves the clock forward, as time passing.
    func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
