// `CurlBridgeProbe h2-faults [rounds]`: every HTTP/2 fault of `H2FaultServer`, in the three client styles,
// with the process's descriptors, threads, live curl handles and RSS before and after, and the
// process CPU time each fault took. The fault servers run in this process too, so their sockets
// count: they close when the client closes its side. One warm-up round, then `rounds` (5 unless
// given) measured ones; the first is reported fault by fault.
import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation
import Synchronization

/// The faults the probe goes through, with a short name and the requests each style sends.
private let h2ProbeFaults: [(name: String, fault: H2Fault, requests: [Request])] = {
    let one = [Request.get("f").timeout(idle: .milliseconds(300))]
    let four = (0..<4).map { Request.get("r\($0)").timeout(idle: .seconds(5)) }
    return [
        ("resetMidBody", .resetMidBody, one),
        ("goAway", .goAway(requests: 4, answered: 2), four),
        ("goAwayThenCloseMidBody", .goAwayThenCloseMidBody(requests: 4, answered: 2), four),
        ("refuseStreams", .refuseStreams(count: 3), one),
        ("continuationFlood", .continuationFlood, one),
        ("oversizedHeaderSection", .oversizedHeaderSection(bytes: 300 << 10), one),
        ("dataBeyondContentLength", .dataBeyondContentLength, one),
        ("closeMidBody", .closeMidBody, one),
        ("stallAfterHeaders", .stallAfterHeaders, one),
    ]
}()

/// Waits on this thread for `body`, run in a task.
private func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0 }!.get()
}

/// Sends `requests` concurrently in each style through `transport` (the blocking ones from
/// threads of their own) and returns the sorted distinct outcomes: status codes and error codes.
private func sendInEveryStyle(_ requests: [Request], through transport: Transport) -> [String] {
    let outcomes = ProbeOutcomes()
    let note = outcomes.note
    let group = DispatchGroup()
    let blocking = BlockingClient(transport: transport), async = AsyncClient(transport: transport)
    let callbacks = CallbackClient(transport: transport)
    for request in requests {
        group.enter()
        Thread.detachNewThread {
            note(Result { () throws(RequestError) in try blocking.send(request) })
            group.leave()
        }
    }
    group.wait()
    for request in requests {
        group.enter()
        Task {
            do throws(RequestError) { note(.success(try await async.send(request))) } catch { note(.failure(error)) }
            group.leave()
        }
    }
    group.wait()
    for request in requests {
        group.enter()
        callbacks.send(request) { note($0); group.leave() }
    }
    group.wait()
    return outcomes.distinct
}

/// Outcomes of requests, collected from any thread: status codes and error codes.
private final class ProbeOutcomes: Sendable {
    private let words = Mutex<[String]>([])

    /// Notes `result`.
    @Sendable func note(_ result: Result<Response, RequestError>) {
        let word = switch result {
        case .success(let response): String(response.status.code)
        case .failure(let error): error.code.description
        }
        words.withLock { $0.append(word) }
    }

    /// The distinct outcomes, sorted.
    var distinct: [String] { words.withLock { Set($0).sorted() } }
}

/// Process CPU time (user and system) so far, in milliseconds.
private func cpuMilliseconds() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
}

/// The resident set size in KiB, from /proc/self/status, after `malloc_trim(0)` (freed heap
/// handed back first, so the figure is live memory rather than what glibc kept for reuse).
private func residentKiB() -> Int {
    _ = mallocTrim(0)
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

/// Runs every fault once through a new transport and shuts it down; prints a line per fault
/// when `report` is set.
private func runH2Faults(server: TestServer, configuration: Configuration, report: Bool) throws {
    for entry in h2ProbeFaults {
        let faultServer = try waitFor { try await server.startH2FaultServer(entry.fault) }
        var faultConfiguration = configuration
        faultConfiguration.baseURL = try faultServer.url()
        let transport = Transport(configuration: faultConfiguration)
        let cpuBefore = cpuMilliseconds()
        let outcomes = sendInEveryStyle(entry.requests, through: transport)
        shutdownAndWait(transport)
        let cpu = cpuMilliseconds() - cpuBefore
        try waitFor { try await faultServer.close() }
        if report {
            print("h2-faults fault=\(entry.name) outcomes=\(outcomes.joined(separator: ",")) cpuMs=\(cpu) connections=\(faultServer.connectionsAccepted) continuationFrames=\(faultServer.continuationFramesSent)")
        }
    }
}

func probeH2Faults(server: TestServer, rounds: Int) -> Never {
    guard let testCA = try? CertificateBundle(pem: TestServer.certificateAuthorityPEM) else {
        print("h2-faults the test CA's PEM is malformed")
        exit(1)
    }
    let configuration = Configuration(tls: TLSConfiguration(trustRoots: .replacingSystem(with: testCA)))
    do {
        try runH2Faults(server: server, configuration: configuration, report: false)  // warm-up
        Thread.sleep(forTimeInterval: 0.5)  // the fault servers close their sides asynchronously
        let descriptorsBefore = count("/proc/self/fd")
        let threadsBefore = count("/proc/self/task"), handlesBefore = Transport._liveCurlHandleCount
        let transfersBefore = Transport._liveCurlTransferCount
        let residentBefore = residentKiB()
        for round in 0..<rounds {
            try runH2Faults(server: server, configuration: configuration, report: round == 0)
        }
        let descriptorsAfter = settled(at: descriptorsBefore) { count("/proc/self/fd") }
        let threadsAfter = settled(at: threadsBefore) { count("/proc/self/task") }
        let handlesAfter = settled(at: handlesBefore) { Transport._liveCurlHandleCount }
        let transfersAfter = settled(at: transfersBefore) { Transport._liveCurlTransferCount }
        Thread.sleep(forTimeInterval: 0.3)  // the fault servers' TLS handlers let go after 100 ms
        print("h2-faults rounds=\(rounds) fdBefore=\(descriptorsBefore) fdAfter=\(descriptorsAfter) threadsBefore=\(threadsBefore) threadsAfter=\(threadsAfter) handlesBefore=\(handlesBefore) handlesAfter=\(handlesAfter) transfersBefore=\(transfersBefore) transfersAfter=\(transfersAfter) rssBeforeKiB=\(residentBefore) rssAfterKiB=\(residentKiB())")
    } catch {
        print("h2-faults failed: \(error)")
        exit(1)
    }
    exit(0)
}
