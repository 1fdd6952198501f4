import CurlBridge
import CurlBridgeTesting
import Foundation

/// The base URL the stubbed transports resolve against; nothing listens there.
let stubBaseURL = URL(string: "https://api.example.test/v1/")!

/// A transport that `responder` answers, with `configure` applied to its configuration.
func stubbedTransport(_ responder: StubResponder, configure: (inout Configuration) -> Void = { _ in }) -> Transport {
    var configuration = Configuration(baseURL: stubBaseURL)
    configure(&configuration)
    return Transport(configuration: configuration, responder: responder)
}
