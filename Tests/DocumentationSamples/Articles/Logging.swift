// The names Logging.md's samples assume.
import CurlBridge
import Foundation
import Logging

struct LoggingSamples: Sendable {
    let client: AsyncClient
    let order: Order
    let api: URL
}

/// The reader's order, as the logging sample posts it.
struct Order: Encodable, Sendable {
    var id: Int
}
