import CurlBridge
import Foundation

/// The three ways to send a request; most integration tests run once per style.
enum ClientStyle: String, CaseIterable, CustomStringConvertible, Sendable {
    case blocking, async, callback

    var description: String { rawValue }

    /// Sends `request` through `transport` in this style and returns the outcome.
    /// The blocking style runs on a thread of its own, where the guard allows it.
    func send(_ request: Request, through transport: Transport) async -> Result<Response, RequestError> {
        switch self {
        case .blocking:
            let client = BlockingClient(transport: transport)
            return await onWorkerThread { Result { () throws(RequestError) in try client.send(request) } }
        case .async:
            do {
                return .success(try await AsyncClient(transport: transport).send(request))
            } catch {
                return .failure(error)
            }
        case .callback:
            let client = CallbackClient(transport: transport)
            return await withCheckedContinuation { continuation in
                client.send(request) { continuation.resume(returning: $0) }
            }
        }
    }
}

/// Runs `body` on a new `Thread` (not a task, not the main thread) and returns its result.
func onWorkerThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Runs `body`, which flushes files to the disk, on a new `Thread`: an `fsync` may wait for
/// everything the machine has written, and a test must not hold one of the cooperative pool's
/// threads (two, on two cores) meanwhile — every async test would wait with it.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await onWorkerThread { Result { try body() } }.get()
}

/// A blocking send from synchronous code (the guard decides whether it may wait).
func sendBlocking(_ client: BlockingClient, _ request: Request) -> Result<Response, RequestError> {
    Result { () throws(RequestError) in try client.send(request) }
}

extension Result {
    /// The failure, if any.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
