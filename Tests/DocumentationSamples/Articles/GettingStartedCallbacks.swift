// The names GettingStartedCallbacks.md's samples assume (the first sample declares them).
import CurlBridge
import Foundation

struct GettingStartedCallbacksSamples: Sendable {
    let legacy: CallbackClient
    let networkQueue: DispatchQueue
}
