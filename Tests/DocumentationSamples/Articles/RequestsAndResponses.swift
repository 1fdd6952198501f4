// The names RequestsAndResponses.md's samples assume.
import CurlBridge
import CurlBridgeFoundation
import Foundation

struct RequestsAndResponsesSamples: Sendable {
    let transport: Transport
    let response: Response
    let newUser: NewUser
    let data: Data
    let pngData: Data
}
