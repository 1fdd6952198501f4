@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// Bodies that never end or decode to 200 MiB: held in memory they stop at the body cap; a
/// stream consumer stops them by failing.
@Suite("Compression bombs and endless bodies", .hangGuard)
struct CompressionBombTests {
    /// The three bombs and the endless body, each with the cap `send` runs with.
    struct Flood: Sendable, CustomTestStringConvertible {
        var fault: Fault
        var parameters: [String: String]
        var testDescription: String { parameters["encoding"].map { "\($0) bomb" } ?? fault.rawValue }

        static let all = CompressionBomb.allCases.map { Flood(fault: .compressionBomb, parameters: ["encoding": $0.rawValue]) }
            + [Flood(fault: .endlessBody, parameters: [:])]
    }

    @Test("an in-memory send stops at the default 64 MiB body cap", arguments: Flood.all, ClientStyle.allCases)
    func sendStopsAtTheBodyCap(flood: Flood, style: ClientStyle) async throws {
        let server = try await FaultFixture.server()
        let key = FaultFixture.key()
        let (transport, completions) = FaultFixture.transport()
        let result = await style.send(.get(server.url(flood.fault, key: key, flood.parameters)), through: transport)
        #expect(result.failure?.code == .bodyTooLarge, "\(result.failure?.curlMessage ?? "success")")
        #expect(await completions.completions(containing: key, through: transport, server: server) == 1)
    }

    @Test("a stream consumer stops the flood by failing after 1 MiB", arguments: Flood.all, ClientStyle.allCases)
    func streamConsumerStopsTheFlood(flood: Flood, style: ClientStyle) async throws {
        let server = try await FaultFixture.server()
        let key = FaultFixture.key()
        let (transport, completions) = FaultFixture.transport()
        let error = await style.streamStopping(after: 1 << 20, .get(server.url(flood.fault, key: key, flood.parameters)), through: transport)
        // The callback consumer cancels; curl may first refuse to hold one read's decoded output
        // for the paused stream (a bomb's 512 KiB decode to far more), which is bodyTooLarge too.
        let expected: [RequestError.Code] = style == .callback ? [.cancelled, .bodyTooLarge] : [.bodyTooLarge]
        #expect(error.map { expected.contains($0.code) } == true, "\(error.map { "\($0.code): \($0.curlMessage ?? $0.message)" } ?? "success")")
        #expect(await completions.completions(containing: key, through: transport, server: server) == 1)
        #expect(await poll(within: .seconds(30), until: { transport.inFlightCount == 0 }))
    }

    /// A plain send decides a redirect from the complete response, so it collects the 3xx body
    /// under the cap like any other (streams and downloads decide at the head and drain 1 MiB).
    @Test("a gzip bomb in a redirect's body stops at the body cap", arguments: ClientStyle.allCases)
    func bombInRedirectBody(style: ClientStyle) async throws {
        let server = try await FaultFixture.server()
        let (transport, _) = FaultFixture.transport()
        let result = await style.send(.get(server.url(.bombInRedirect, key: FaultFixture.key())), through: transport)
        #expect(result.failure?.code == .bodyTooLarge, "\(result.failure.map { "\($0.code): \($0.curlMessage ?? $0.message)" } ?? "success")")
    }
}

extension ClientStyle {
    /// Streams `request` and fails as a consumer would once more than `limit` bytes arrived:
    /// `collect(upTo:)` for the blocking and async styles, a cancel for the
    /// callback style. Returns the error the stream ended with (`nil`: it succeeded).
    func streamStopping(after limit: Int, _ request: Request, through transport: Transport) async -> RequestError? {
        switch self {
        case .blocking:
            let client = BlockingClient(transport: transport)
            return await onWorkerThread {
                do throws(RequestError) {
                    _ = try client.stream(request).collect(upTo: limit)
                    return nil
                } catch {
                    return error
                }
            }
        case .async:
            do {
                _ = try await AsyncClient(transport: transport).stream(request).body.collect(upTo: limit)
                return nil
            } catch {
                return error
            }
        case .callback:
            let received = Mutex(0)
            let task = Mutex<StreamTask?>(nil)
            return await withCheckedContinuation { continuation in
                let started = CallbackClient(transport: transport).stream(
                    request, onResponse: { _ in },
                    onData: { data in
                        let total = received.withLock { $0 += data.count; return $0 }
                        if total > limit { task.withLock { $0 }?.cancel() }
                    },
                    onComplete: { continuation.resume(returning: $0.failure) })
                task.withLock { $0 = started }
            }
        }
    }
}
