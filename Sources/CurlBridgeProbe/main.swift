// Checks that need a process of their own; the tests start this and read its output lines.
//
//   CurlBridgeProbe main-queue   the blocking guard on the real main thread, then on the main
//                                queue after dispatchMain() (off the main thread on Linux)
//   CurlBridgeProbe resources    descriptors and threads before and after 300 requests through
//                                five transports in all three styles, then shut down
import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation
import Synchronization

/// The outcome of a blocking send as one word: the status code or the error code.
func outcome(_ client: BlockingClient, _ request: Request) -> String {
    do {
        return String(try client.send(request).status.code)
    } catch {
        return error.code.description
    }
}

func probeMainQueue(server: TestServer) -> Never {
    let client = BlockingClient(transport: Transport(configuration: .init(baseURL: server.httpURL)))
    print("main-thread isMainThread=\(Thread.isMainThread) refused=\(outcome(client, .get("echo")))")
    DispatchQueue.main.async {
        print("main-queue isMainThread=\(Thread.isMainThread)")
        print("main-queue refused=\(outcome(client, .get("echo")))")
        DispatchQueue(label: "probe.nested", target: .main).async {
            print("main-queue nested-queue refused=\(outcome(client, .get("echo")))")
            Thread.detachNewThread {
                print("worker allowed=\(outcome(client, .get("echo")))")
                exit(0)
            }
        }
    }
    dispatchMain()
}

func count(_ directory: String) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1
}

/// Sends `request` in each style `times` times, concurrently, and returns the number of failures.
func exercise(_ transport: Transport, _ request: Request, times: Int) -> Int {
    let failures = Failures()
    let blocking = BlockingClient(transport: transport)
    let callbacks = CallbackClient(transport: transport)
    let async = AsyncClient(transport: transport)
    let group = DispatchGroup()
    for _ in 0..<times {
        group.enter()
        callbacks.send(request) { if case .failure(let error) = $0 { failures.add(error) }; group.leave() }
        group.enter()
        Task {
            do throws(RequestError) { _ = try await async.send(request) } catch { failures.add(error) }
            group.leave()
        }
    }
    for _ in 0..<times {
        group.enter()
        Thread.detachNewThread {
            do throws(RequestError) { _ = try blocking.send(request) } catch { failures.add(error) }
            group.leave()
        }
    }
    group.wait()
    if failures.count > 0 { print("failures \(failures.summary)") }
    return failures.count
}

/// The error codes of failed requests, collected from any thread.
final class Failures: Sendable {
    private let codes = Mutex<[String]>([])
    func add(_ error: RequestError) { codes.withLock { $0.append(error.code.description) } }
    var count: Int { codes.withLock { $0.count } }
    var summary: String { codes.withLock { Set($0).sorted().joined(separator: ",") } }
}

func shutdownAndWait(_ transport: Transport) {
    let done = DispatchSemaphore(value: 0)
    transport.shutdown { done.signal() }
    done.wait()
}

func probeResources(server: TestServer) -> Never {
    let configuration = Configuration(tls: TLSConfiguration(trustedCertificatesPEM: TestServer.certificateAuthorityPEM))
    let plain = Request.get(server.httpURL.absoluteString + "echo")
    let secure = Request.get(server.httpsURL.absoluteString + "bytes/20000")
    let warmUp = Transport(configuration: configuration)
    _ = exercise(warmUp, secure, times: 2)
    shutdownAndWait(warmUp)
    Thread.sleep(forTimeInterval: 0.5)
    let descriptorsBefore = count("/proc/self/fd"), threadsBefore = count("/proc/self/task")
    var failures = 0
    for round in 0..<5 {
        let transport = Transport(configuration: configuration)
        failures += exercise(transport, round % 2 == 0 ? plain : secure, times: 20)
        shutdownAndWait(transport)
    }
    var descriptorsAfter = count("/proc/self/fd")
    for _ in 0..<100 where descriptorsAfter > descriptorsBefore {  // the server closes its side asynchronously
        Thread.sleep(forTimeInterval: 0.03)
        descriptorsAfter = count("/proc/self/fd")
    }
    print("resources requests=300 failures=\(failures) fdBefore=\(descriptorsBefore) fdAfter=\(descriptorsAfter) threadsBefore=\(threadsBefore) threadsAfter=\(count("/proc/self/task"))")
    exit(0)
}

do {
    let server = try TestServer.startAndWait()
    switch CommandLine.arguments.dropFirst().first {
    case "main-queue": probeMainQueue(server: server)
    case "resources": probeResources(server: server)
    default:
        print("usage: CurlBridgeProbe main-queue|resources")
        exit(2)
    }
} catch {
    print("the test server did not start: \(error)")
    exit(1)
}
