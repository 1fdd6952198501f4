// The names ChoosingAStyle.md's samples assume.
import CurlBridge

struct ChoosingAStyleSamples: Sendable {
    let configuration: Configuration
}
