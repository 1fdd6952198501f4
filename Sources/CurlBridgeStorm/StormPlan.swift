import CurlBridge
import CurlBridgeTestServer

/// Where in its life a request is when the storm cancels it.
enum StormPhase: String, CaseIterable, Sendable {
    /// Waiting for a connection: the transport's connection limit is reached.
    case queued
    /// In the TCP connect: a port that never completes the handshake.
    case connecting
    /// In the TLS handshake: a port that accepts and never answers the ClientHello.
    case tls
    /// Sent, waiting for the response head.
    case headers
    /// Mid-body: the head arrived, the body drips.
    case body
    /// A streamed body the consumer stopped reading: paused in curl by backpressure.
    case paused
    /// A small response that may be finishing as the cancel comes.
    case completing
    /// Waiting between attempts: a 503 is retried after a backoff of up to 30 s.
    case retryWait

    /// The event after which the cancel is scheduled.
    var gate: StormGate {
        switch self {
        case .queued, .connecting, .tls, .headers, .completing: .start
        case .body, .paused: .head
        case .retryWait: .retry
        }
    }
}

/// A moment in a request's life, seen by the storm's event monitor.
enum StormGate: Sendable {
    case start, head, retry
}

/// The three client styles.
enum StormStyle: String, CaseIterable, Sendable {
    case blocking, async, callback
}

/// How a request is cancelled.
enum CancelPath: String, CaseIterable, Sendable {
    /// The handle the call returned: `CallbackTask`, `StreamTask`, `BlockingStreamingResponse.close()`.
    case handle
    /// Cancelling the Swift task that awaits the call.
    case task
    /// A `TransferCanceller` passed to a blocking call.
    case canceller
    /// `Transport.cancelAll()`, for a batch of requests at once.
    case cancelAll
}

/// What the storm does with one request: everything is drawn from the seeded generator.
struct StormPlan: Sendable {
    let index: Int
    let phase: StormPhase
    let style: StormStyle
    /// Over TLS (HTTP/2 by ALPN) rather than plaintext HTTP/1.1, where the phase allows both
    /// (queued, connecting and paused are plaintext; tls is TLS).
    let secure: Bool
    let path: CancelPath
    /// How long after the gate the cancel comes, in nanoseconds.
    let delay: UInt64
    /// For `completing`: the response's size.
    let bytes: Int

    /// Whether the request streams its body (only the paused phase does).
    var streams: Bool { phase == .paused }

    /// Draws a plan; `batched` requests are cancelled together by `cancelAll()`.
    static func draw(index: Int, batched: Bool, using random: inout SeededGenerator) -> StormPlan {
        let phases = batched ? StormPhase.allCases.filter { $0 != .queued } : StormPhase.allCases
        let phase = phases.randomElement(using: &random) ?? .headers
        let style = StormStyle.allCases.randomElement(using: &random) ?? .callback
        // A paused stream goes over HTTP/1.1, where TCP's flow control stops the server within a
        // few MB; over HTTP/2, curl 7.88 keeps a paused stream's window open.
        let secure = Bool.random(using: &random) && phase != .paused
        let path: CancelPath = switch (batched, style) {
        case (true, _): .cancelAll
        case (false, .callback): .handle
        case (false, .async): .task
        case (false, .blocking): phase == .paused ? .handle : .canceller
        }
        let delay: UInt64 = phase == .completing
            ? UInt64.random(in: 0...3_000_000, using: &random) : UInt64.random(in: 0...20_000_000, using: &random)
        return StormPlan(
            index: index, phase: phase, style: style, secure: secure, path: path, delay: delay,
            bytes: Int.random(in: 0...4000, using: &random))
    }
}

/// The URLs the phases use.
struct StormTargets: Sendable {
    let plain: String
    let secure: String
    /// The test server's port that accepts and never writes.
    let stallPort: Int
    /// A port whose connects never complete.
    let unansweredPort: Int

    /// The request for `plan`, tagged with its index in the `X-Storm` header.
    func request(for plan: StormPlan) -> Request {
        let base = plan.secure ? secure : plain
        let request: Request = switch plan.phase {
        case .queued: .get(plain + "never-respond")
        case .connecting: .get("http://127.0.0.1:\(unansweredPort)/connect")
        case .tls: .get("https://127.0.0.1:\(stallPort)/")
        case .headers: .get(base + "never-respond")
        case .body: .get(base + "drip?bytes=10000&interval=200")
        // Far more than a consumer that stopped reading can hold (64 KiB plus one receive buffer of
        // 512 KiB), and more than loopback delivers while its cancel is applied: it can only end
        // through the cancel.
        case .paused: .get(plain + "bytes/64000000")
        case .completing: .get(base + "bytes/\(plan.bytes)")
        case .retryWait:
            .get(base + "status/503").retries(RetryPolicy(maximumAttempts: 3, baseDelay: .seconds(30), maximumDelay: .seconds(30)))
        }
        return request.header(StormLedger.indexHeader, String(plan.index))
    }
}
