// The names README.md's samples assume.
import CurlBridge
import Foundation

struct READMESamples: Sendable {
    let transport: Transport
    let newUser: NewUser
    let myQueue: DispatchQueue
}
