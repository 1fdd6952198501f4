import CurlBridge
import CurlBridgeTesting
import Foundation
import Testing

/// The base URL the stubbed transports resolve against; nothing listens there.
let stubBaseURL = URL(string: "https://api.example.test/v1/")!

/// A transport that `responder` answers, with `configure` applied to its configuration.
func stubbedTransport(_ responder: StubResponder, configure: (inout Configuration) -> Void = { _ in }) -> Transport {
    var configuration = Configuration(baseURL: stubBaseURL)
    configure(&configuration)
    return Transport(configuration: configuration, responder: responder)
}

/// Runs `body` on a thread of its own, where the blocking client may wait.
func onWorkerThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A callback send, awaited.
func sendWithCallback(_ client: CallbackClient, _ request: Request) async -> Result<Response, RequestError> {
    await withCheckedContinuation { continuation in
        client.send(request) { continuation.resume(returning: $0) }
    }
}

/// The three ways to send, each awaited the same way.
enum ClientStyle: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case blocking, async, callback

    var testDescription: String { rawValue }

    /// Sends `request` over `transport` in this style (the blocking one from a thread of its own).
    func send(_ request: Request, over transport: Transport) async -> Result<Response, RequestError> {
        switch self {
        case .blocking:
            let client = BlockingClient(transport: transport)
            return await onWorkerThread { Result { () throws(RequestError) in try client.send(request) } }
        case .async:
            do throws(RequestError) {
                return .success(try await AsyncClient(transport: transport).send(request))
            } catch {
                return .failure(error)
            }
        case .callback:
            return await sendWithCallback(CallbackClient(transport: transport), request)
        }
    }
}
