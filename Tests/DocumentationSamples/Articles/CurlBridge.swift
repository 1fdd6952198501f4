// The names CurlBridge.md's samples assume.
import CurlBridge
import Foundation

struct CurlBridgeSamples: Sendable {}
