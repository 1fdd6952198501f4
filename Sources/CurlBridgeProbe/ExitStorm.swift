import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation
import Synchronization

/// `CurlBridgeProbe exit-storm [SEED]`: starts 100 requests over TLS (HTTP/2 and HTTP/1.1; some
/// in the handshake, some waiting for a head, some mid-body, some finishing) in the three styles,
/// waits until at least 20 heads arrived and then a random 0–50 ms, and calls `exit(0)` — from
/// the main thread or from a worker thread, as the seed decides — with all of them in flight.
/// `scripts/exit-storm.sh` runs it many times and counts exits that were not a clean 0.
func probeExitStorm(server: TestServer, seed: UInt64) -> Never {
    guard let testCA = try? CertificateBundle(pem: TestServer.certificateAuthorityPEM) else {
        print("exit-storm the test CA's PEM is malformed")
        exit(1)
    }
    var random = SeededGenerator(seed: seed)
    let heads = Atomic<Int>(0)
    let monitor = ClosureEventMonitor(didReceiveHead: { _, _, _ in heads.add(1, ordering: .relaxed) })
    let transports = [HTTPVersionPreference.http2OverTLS, .http1_1].map { version in
        Transport(configuration: Configuration(
            tls: TLSConfiguration(trustRoots: .replacingSystem(with: testCA)), httpVersion: version, eventMonitors: [monitor]))
    }
    let secure = server.httpsURL.absoluteString
    let paths = ["drip?bytes=100000&interval=10", "never-respond", "bytes/5000000", "bytes/2000", "delay/20"]
    for index in 0..<100 {
        let transport = transports[index % 2]
        let url = index % 10 == 9 ? "https://127.0.0.1:\(server.stallPort)/" : secure + paths[Int(random.next() % 5)]
        let request = Request.get(url)
        switch index % 3 {
        case 0: CallbackClient(transport: transport).send(request) { _ in }
        case 1: Task { _ = try? await AsyncClient(transport: transport).send(request) }
        default: Thread.detachNewThread { _ = try? BlockingClient(transport: transport).send(request) }
        }
    }
    let deadline = Date().addingTimeInterval(5)
    while heads.load(ordering: .relaxed) < 20, Date() < deadline { usleep(1000) }
    let delay = UInt32(random.next() % 50_000)
    let fromWorker = random.next() % 2 == 0
    print("exit-storm seed=\(seed) heads=\(heads.load(ordering: .relaxed)) delayUs=\(delay) from=\(fromWorker ? "worker" : "main")")
    usleep(delay)
    if fromWorker {
        Thread.detachNewThread { exit(0) }
        while true { pause() }
    }
    exit(0)
}
