// The names CurlBridgeTesting.md's samples assume.
import CurlBridge
import CurlBridgeTesting
import Foundation
import Testing

struct CurlBridgeTestingSamples: Sendable {}
