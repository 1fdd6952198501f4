// The names CurlBridgeOpenAPI.md's samples assume; `Client` and `Servers` are the client generated
// from this target's openapi.yaml.
import CurlBridge
import CurlBridgeOpenAPI
import Foundation

struct CurlBridgeOpenAPISamples: Sendable {
    let configuration: CurlBridge.Configuration
}
