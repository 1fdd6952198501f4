// The names MetricsAndTracing.md's samples assume.
import CurlBridge
import Foundation

struct MetricsAndTracingSamples: Sendable {}
