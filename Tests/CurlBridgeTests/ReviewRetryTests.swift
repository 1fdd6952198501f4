@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Review of the retry lifecycle (issue 9): cases the lead's tests do not cover.
@Suite("Review: retries", .hangGuard)
struct ReviewRetryTests {
    /// The backoff timer is `loop.queue.asyncAfter`, but while any transfer is in flight the
    /// queue is busy running `CurlMultiLoop.run()` (`while turn() {}`), so the timer's block
    /// cannot run until the loop goes idle: a zero-delay retry waits for every other transfer.
    @Test("a retry's backoff timer fires while another transfer keeps the loop busy", arguments: ClientStyle.allCases)
    func backoffNotStarvedByBusyLoop(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let transport = Fixture.transport(server) { $0.retryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: .zero) }
        let (slowDone, signal) = AsyncStream<Void>.makeStream()
        // Keeps a transfer in flight for about 6 s.
        transport.start(.get("drip?bytes=6&interval=1000"), events: TransferEvents { _ in signal.yield() })
        try await transport.waitUntilInFlight(1)
        let clock = ContinuousClock()
        let started = clock.now
        let response = try await style.send(.get("flaky?key=\(key)&failures=1"), through: transport).get()
        let elapsed = clock.now - started
        #expect(response.status.code == 200)
        #expect(response.attempts.count == 2)
        #expect(elapsed < .seconds(3), "a zero-delay retry took \(elapsed): its timer waited behind the other transfer")
        _ = await slowDone.first { _ in true }
    }

    /// A stream consumer got the 200 head; the idle timeout then fires before any body byte.
    /// `idleTimedOut` is retryable by default and nothing stops a retry once the response reached
    /// the consumer: the retry delivers a second head into the same stream.
    @Test("a stream whose head reached the consumer is not retried after an idle timeout", arguments: ClientStyle.allCases)
    func streamNotRetriedAfterHeadDelivered(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server) { $0.retryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: .zero) }
        let outcome = await style.stream(.get("drip?bytes=1&interval=3000").timeout(idle: .milliseconds(500)), through: transport)
        #expect(outcome.head?.status.code == 200)
        #expect(outcome.error?.code == .idleTimedOut)
        #expect(outcome.error?.attempts.count == 1, "retried after the consumer had the head: \(outcome.error?.attempts.map(\.outcome) ?? [])")
        #expect(outcome.orderViolations == 0)
    }

    /// `/close-mid-body` sends a 200 head and 100 bytes, then closes. A retrier asking to retry
    /// is obeyed although those bytes already reached the stream consumer: it gets them twice.
    @Test("a retrier's retry after body bytes reached a stream consumer does not duplicate them", arguments: ClientStyle.allCases)
    func retrierRetryDoesNotDuplicateStreamedBytes(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let retryOnce = Interceptor(retry: { _, _, context in context.attempt == 1 ? .retry : .doNotRetry })
        let outcome = await style.stream(.get("close-mid-body").intercepted(by: retryOnce), through: transport)
        #expect(outcome.head?.status.code == 200)
        #expect(outcome.body.count == 100, "the consumer received \(outcome.body.count) bytes of a 100-byte partial body")
        #expect(outcome.error?.attempts.count == 1)
    }

    /// A retryable 503 whose body is larger than `RequestLifecycle.holdLimit` (64 KiB) is
    /// released to the stream consumer mid-body ("and is not retried", says the comment) — but
    /// `attemptEnded` still asks the policy, which retries: the consumer gets the 503's head and
    /// 100 000 bytes, then the 200's head and body in the same stream.
    @Test("a failure response released to a stream consumer for its size is not retried", arguments: ClientStyle.allCases)
    func releasedHeldResponseIsNotRetried(style: ClientStyle) async throws {
        let big = Data(repeating: UInt8(ascii: "x"), count: 100_000)
        let server = try ScriptedServer([
            ScriptedServer.response(status: "503 Service Unavailable", body: big),
            ScriptedServer.response(status: "200 OK", body: Data("ok".utf8)),
        ])
        let transport = Transport(configuration: Configuration(retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .zero)))
        let outcome = await style.stream(.get(server.url), through: transport)
        #expect(outcome.head?.status.code == 503)
        #expect(outcome.body == big, "the stream carried \(outcome.body.count) bytes")
        #expect(outcome.orderViolations == 0)
        #expect(server.requestCount == 1)
    }

    /// The total timeout spans all attempts, but nothing enforces it while the request waits for
    /// its adapters (or retriers): a slow adapter (a token refresh) holds the request past it.
    @Test("the total timeout ends a request whose adapter is still running", arguments: ClientStyle.allCases)
    func totalTimeoutDuringAdapter(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server) {
            $0.interceptors = [Interceptor(adapt: { request, _ in
                try? await Task.sleep(for: .seconds(4))
                return request
            })]
        }
        let clock = ContinuousClock()
        let started = clock.now
        let error = await style.send(.get("echo").timeout(total: .milliseconds(500)), through: transport).failure
        let elapsed = clock.now - started
        #expect(error?.code == .totalTimedOut)
        #expect(elapsed < .seconds(2), "the 0.5 s total timeout ended the request after \(elapsed)")
    }
}

/// A loopback HTTP/1.1 server answering each connection with the next scripted response, then
/// closing it.
final class ScriptedServer: Sendable {
    private let descriptor: Int32
    let port: Int
    private final class Counter: Sendable { let value = Mutex(0) }
    private let served = Counter()

    var url: String { "http://127.0.0.1:\(port)/" }
    var requestCount: Int { served.value.withLock { $0 } }

    static func response(status: String, body: Data) -> Data {
        var data = Data("HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n".utf8)
        data.append(body)
        return data
    }

    init(_ script: [Data]) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let served = self.served
        let thread = Thread {
            for answer in script {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                var received = Data()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while received.range(of: Data("\r\n\r\n".utf8)) == nil {
                    let count = read(connection, &buffer, buffer.count)
                    guard count > 0 else { break }
                    received.append(contentsOf: buffer[0..<count])
                }
                served.value.withLock { $0 += 1 }
                answer.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = write(connection, bytes.baseAddress! + offset, bytes.count - offset)
                        guard written > 0 else { break }
                        offset += written
                    }
                }
                shutdown(connection, Int32(SHUT_WR))
                usleep(100_000)
                close(connection)
            }
        }
        thread.start()
    }

    deinit { close(descriptor) }
}
