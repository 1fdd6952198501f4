// Checks that need a process of their own; the tests start this and read its output lines.
//
//   CurlBridgeProbe main-queue   the blocking guard on the real main thread, then on the main
//                                queue after dispatchMain() (off the main thread on Linux)
//   CurlBridgeProbe resources    descriptors and threads before and after 300 requests through
//                                five transports in all three styles, then shut down
//   CurlBridgeProbe disk-full D  with a 1 MiB file size limit (RLIMIT_FSIZE, a full disk as
//                                write(2) sees it), a 4 MB download into directory D in each style
//   CurlBridgeProbe queue-disk-full D   the same limit under a DownloadQueue in directory D: it
//                                pauses, keeps its bytes, and finishes once the limit is lifted
//   CurlBridgeProbe env-proxy    with http_proxy, HTTPS_PROXY, all_proxy and NO_PROXY set in this
//                                process, whether requests go through a test proxy for each
//                                proxy configuration
//   CurlBridgeProbe faults       every fault of the fault server once per style, with descriptors,
//                                threads, curl handles, RSS and CPU time after each (FaultsProbe.swift)
//   CurlBridgeProbe h2-faults [N] every HTTP/2 fault of H2FaultServer in each style, N rounds
//                                (5): descriptors, threads, curl handles, RSS, CPU per fault
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

/// Waits for `measure` (a cheap count) to fall to `baseline` or below, polling every 30 ms for
/// about `seconds`, and returns its last value: descriptors the server closes asynchronously,
/// worker threads that finish exiting.
func settled(at baseline: Int, within seconds: Double = 3, _ measure: () -> Int) -> Int {
    var value = measure()
    for _ in 0..<Int(seconds / 0.03) where value > baseline {
        Thread.sleep(forTimeInterval: 0.03)
        value = measure()
    }
    return value
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
    guard let testCA = try? CertificateBundle(pem: TestServer.certificateAuthorityPEM) else {
        print("the test CA's PEM is malformed")
        exit(1)
    }
    let configuration = Configuration(tls: TLSConfiguration(trustRoots: .replacingSystem(with: testCA)))
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
    let descriptorsAfter = settled(at: descriptorsBefore) { count("/proc/self/fd") }  // the server closes its side asynchronously
    let threadsAfter = settled(at: threadsBefore) { count("/proc/self/task") }  // worker threads finish exiting
    print("resources requests=300 failures=\(failures) fdBefore=\(descriptorsBefore) fdAfter=\(descriptorsAfter) threadsBefore=\(threadsBefore) threadsAfter=\(threadsAfter)")
    exit(0)
}

/// Downloads 4 MB in each style with the process limited to 1 MiB files, and reports for each
/// what failed, whether the existing destination survived, and what was left in the directory.
func probeDiskFull(server: TestServer, directory: String) -> Never {
    signal(SIGXFSZ, SIG_IGN)  // write(2) then fails with EFBIG instead of the signal killing us
    var limit = rlimit(rlim_cur: 1 << 20, rlim_max: 1 << 20)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else {
        print("disk-full setrlimit failed")
        exit(1)
    }
    let transport = Transport(configuration: .init(baseURL: server.httpURL))
    let request = Request.get("bytes/4000000")
    for style in ["blocking", "async", "callback"] {
        let folder = URL(fileURLWithPath: directory).appendingPathComponent(style)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let destination = folder.appendingPathComponent("download.bin")
        try? Data("mine".utf8).write(to: destination)
        let outcome = Mutex<Result<DownloadResponse, RequestError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        switch style {
        case "blocking":
            let client = BlockingClient(transport: transport, policy: .init(allowsMainThread: true))
            outcome.withLock { $0 = Result { () throws(RequestError) in try client.download(request, to: destination) } }
            done.signal()
        case "async":
            let client = AsyncClient(transport: transport)
            Task {
                let result: Result<DownloadResponse, RequestError>
                do throws(RequestError) { result = .success(try await client.download(request, to: destination)) } catch { result = .failure(error) }
                outcome.withLock { $0 = result }
                done.signal()
            }
        default:
            CallbackClient(transport: transport).download(request, to: destination) { result in
                outcome.withLock { $0 = result }
                done.signal()
            }
        }
        done.wait()
        let code = outcome.withLock { $0 }.map { result in
            switch result {
            case .success: "success"
            case .failure(let error): error.code.description
            }
        } ?? "none"
        let untouched = (try? Data(contentsOf: destination)) == Data("mine".utf8)
        let leftovers = count(folder.path) - 1
        print("disk-full style=\(style) code=\(code) untouched=\(untouched) leftovers=\(leftovers)")
    }
    exit(0)
}

/// A queued 3 MB download with the process limited to 1 MiB files: the queue pauses with a
/// precise error and keeps what it wrote; with the limit lifted, it resumes and finishes the file
/// byte-identical. Reports what it saw.
func probeQueueDiskFull(server: TestServer, directory: String) -> Never {
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
    let unlimited = limit.rlim_cur
    limit.rlim_cur = 1 << 20
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else {
        print("queue-disk-full setrlimit failed")
        exit(1)
    }
    let root = URL(fileURLWithPath: directory)
    let destination = root.appendingPathComponent("out/file.bin")
    let full = DispatchSemaphore(value: 0)
    let ended = DispatchSemaphore(value: 0)
    let queue: DownloadQueue
    do throws(RequestError) {
        queue = try DownloadQueue(
            stateDirectory: root.appendingPathComponent("state"), transport: Transport(configuration: .init(baseURL: server.httpURL)),
            options: .init(checkpointInterval: 256 << 10))
        queue.onEvent(queue: DispatchQueue(label: "probe")) { event in
            if case .diskFull = event { full.signal() }
            if case .changed(let download) = event, download.state.isFinal { ended.signal() }
        }
        _ = try queue.enqueue(.get("resource/3000000"), to: destination)
    } catch {
        print("queue-disk-full open failed: \(error)")
        exit(1)
    }
    full.wait()
    let paused = queue.downloads.first!
    limit.rlim_cur = unlimited
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
    queue.resumeAll()
    ended.wait()
    let finished = queue.downloads.first
    let identical = (try? Data(contentsOf: destination)) == TestServer.patternBody(0..<3_000_000, version: 1)
    print(
        "queue-disk-full state=\(paused.state.rawValue) code=\(paused.error?.code.description ?? "none") "
            + "kept=\(paused.bytesOnDisk > 0 && paused.bytesOnDisk <= 1 << 20) finished=\(finished?.state == .finished) identical=\(identical)")
    exit(0)
}

/// With proxy variables in this process's environment, says for each configuration whether a
/// request went through the proxy (`proxied:<outcome>`) or not (`direct:<outcome>`).
func probeEnvironmentProxy(server: TestServer) -> Never {
    let proxy: TestProxy
    do {
        proxy = try TestProxy.startAndWait()
    } catch {
        print("env-proxy the test proxy did not start: \(error)")
        exit(1)
    }
    let proxyURL = "http://127.0.0.1:\(proxy.httpPort)"
    setenv("http_proxy", proxyURL, 1)
    setenv("HTTPS_PROXY", proxyURL, 1)
    setenv("all_proxy", proxyURL, 1)
    setenv("NO_PROXY", "localhost", 1)
    let http = server.httpURL.absoluteString + "echo", https = server.httpsURL.absoluteString + "echo"
    let localhost = "http://localhost:\(server.httpPort)/echo"
    guard let testCA = try? CertificateBundle(pem: TestServer.certificateAuthorityPEM) else {
        print("env-proxy the test CA's PEM is malformed")
        exit(1)
    }
    func route(_ proxyConfiguration: ProxyConfiguration, _ url: String) -> String {
        let transport = Transport(configuration: Configuration(
            tls: TLSConfiguration(trustRoots: .replacingSystem(with: testCA)), proxy: proxyConfiguration))
        let client = BlockingClient(transport: transport, policy: .init(allowsMainThread: true))
        let before = proxy.records.count
        let result = outcome(client, .get(url))
        return (proxy.records.count > before ? "proxied:" : "direct:") + result
    }
    let explicit = ProxyConfiguration.through(.http(host: "127.0.0.1", port: proxy.httpPort))
    print("env-proxy default http=\(route(.direct, http)) https=\(route(.direct, https))")
    print("env-proxy fromEnvironment http=\(route(.fromEnvironment(), http)) https=\(route(.fromEnvironment(), https)) no_proxy=\(route(.fromEnvironment(), localhost))")
    print("env-proxy explicit no_proxy=\(route(explicit, localhost))")
    exit(0)
}

do {
    let server = try TestServer.startAndWait()
    switch CommandLine.arguments.dropFirst().first {
    case "main-queue": probeMainQueue(server: server)
    case "resources": probeResources(server: server)
    case "disk-full" where CommandLine.arguments.count == 3: probeDiskFull(server: server, directory: CommandLine.arguments[2])
    case "queue-disk-full" where CommandLine.arguments.count == 3: probeQueueDiskFull(server: server, directory: CommandLine.arguments[2])
    case "env-proxy": probeEnvironmentProxy(server: server)
    case "faults": probeFaults(server: server)
    case "h2-faults": probeH2Faults(server: server, rounds: CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 5)
    case "exit-storm": probeExitStorm(server: server, seed: CommandLine.arguments.dropFirst(2).first.flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max)))
    default:
        print("usage: CurlBridgeProbe main-queue|resources|disk-full <directory>|queue-disk-full <directory>|env-proxy|faults|h2-faults [rounds]")
        exit(2)
    }
} catch {
    print("the test server did not start: \(error)")
    exit(1)
}
