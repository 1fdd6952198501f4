// The names CurlBridgeTelemetry.md's samples assume.
import CurlBridge
import CurlBridgeTelemetry
import Foundation

struct CurlBridgeTelemetrySamples: Sendable {}
