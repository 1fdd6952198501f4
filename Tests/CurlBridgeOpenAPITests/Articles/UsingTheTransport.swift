// The names UsingTheTransport.md's samples assume; `Client`, `Servers` and `Components` are the
// client generated from this target's openapi.yaml (its `getJSON` stands for any operation).
import CurlBridge
import CurlBridgeOpenAPI
import CurlBridgeTesting
import Foundation
import OpenAPIRuntime
import Testing

struct UsingTheTransportSamples: Sendable {
    let configuration: CurlBridge.Configuration
    let client: Client
    func show(_ item: Operations.GetJSON.Output) {}
    func showOffline() {}
}
