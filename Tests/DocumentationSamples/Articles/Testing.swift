// The names Testing.md's samples assume.
import CurlBridge
import CurlBridgeTestServer
import CurlBridgeTesting
import Foundation
import Testing

struct TestingSamples: Sendable {
    let configuration: Configuration
    let newUser: NewUser
}
