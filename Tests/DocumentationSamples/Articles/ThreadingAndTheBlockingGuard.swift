// The names ThreadingAndTheBlockingGuard.md's samples assume.
import CurlBridge

struct ThreadingAndTheBlockingGuardSamples: Sendable {
    let transport: Transport
}
