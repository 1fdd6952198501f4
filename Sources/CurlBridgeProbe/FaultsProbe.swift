// `CurlBridgeProbe faults`: every fault of the fault server once per style, in this process
// alone, printing after each the process's descriptors, threads, live curl handles, RSS and CPU
// time, so a test can hold them against the baseline.
import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation
import Synchronization

/// One request of the probe: a fault, its query, and the verb to run it with.
struct ProbeFault {
    var name: String
    var fault: Fault
    var parameters: [String: String] = [:]
    var tls = false
    var streams = false
}

/// The probe's faults: every ``Fault`` with its variants, plain and TLS.
let faultProbeList: [ProbeFault] = {
    var list: [ProbeFault] = []
    for tls in [false, true] {
        for fault in Fault.allCases where fault != .ok && fault != .compressionBomb && (fault != .uncleanTLSClose || tls) {
            list.append(ProbeFault(name: fault.rawValue, fault: fault, parameters: fault == .drip ? ["interval": "1000"] : [:], tls: tls))
            if [.closeBeforeResponse, .closeMidBody, .closeMidChunk].contains(fault) {
                list.append(ProbeFault(name: fault.rawValue + "-rst", fault: fault, parameters: ["mode": "rst"], tls: tls))
            }
        }
        for bomb in CompressionBomb.allCases {
            list.append(ProbeFault(name: "\(bomb.rawValue)-bomb", fault: .compressionBomb, parameters: ["encoding": bomb.rawValue], tls: tls))
            list.append(ProbeFault(name: "\(bomb.rawValue)-bomb-stream", fault: .compressionBomb, parameters: ["encoding": bomb.rawValue], tls: tls, streams: true))
        }
    }
    return list
}()

/// glibc's `malloc_trim`, which the Glibc module does not export.
@_silgen_name("malloc_trim") func mallocTrim(_ pad: Int) -> Int32

/// glibc's `mallopt`, likewise.
@_silgen_name("mallopt") func mallocOption(_ parameter: Int32, _ value: Int32) -> Int32

/// Process-wide figures read from /proc and the process's CPU clock.
struct ProcessFigures {
    var descriptors = count("/proc/self/fd")
    var threads = count("/proc/self/task")
    var handles = Transport._liveCurlHandleCount
    /// Live curl transfers (a transfer leaked after giving its handle back shows here only).
    var transfers = Transport._liveCurlTransferCount
    /// Resident bytes after `malloc_trim(0)`: freed heap handed back to the system first, so the
    /// figure is live memory, not what glibc's arenas kept for reuse.
    var residentBytes: Int = {
        _ = mallocTrim(0)
        let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }()
    var cpuSeconds: Double = {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }()
}

/// Runs `probe` once in `style` and returns the outcome as one word.
func runFault(_ probe: ProbeFault, style: String, server: FaultServer, transport: Transport) -> String {
    let request = Request.get(server.url(probe.fault, tls: probe.tls, key: "probe-\(probe.name)-\(style)", probe.parameters))
    let outcome = Mutex("none")
    let done = DispatchSemaphore(value: 0)
    @Sendable func finish(_ code: String) {
        outcome.withLock { $0 = code }
        done.signal()
    }
    @Sendable func word(_ error: RequestError?) -> String { error.map { $0.code.description } ?? "success" }
    switch (style, probe.streams) {
    case ("blocking", false):
        let client = BlockingClient(transport: transport, policy: .init(allowsMainThread: true))
        do throws(RequestError) { _ = try client.send(request); finish("success") } catch { finish(word(error)) }
    case ("blocking", true):
        let client = BlockingClient(transport: transport, policy: .init(allowsMainThread: true))
        do throws(RequestError) { _ = try client.stream(request).collect(upTo: 1 << 20); finish("success") } catch { finish(word(error)) }
    case ("async", let streams):
        let client = AsyncClient(transport: transport)
        Task {
            do throws(RequestError) {
                if streams { _ = try await client.stream(request).body.collect(upTo: 1 << 20) } else { _ = try await client.send(request) }
                finish("success")
            } catch {
                finish(word(error))
            }
        }
    case (_, false):
        CallbackClient(transport: transport).send(request) { finish(word($0.failure)) }
    default:
        let received = Mutex(0)
        let task = Mutex<StreamTask?>(nil)
        let started = CallbackClient(transport: transport).stream(
            request, onResponse: { _ in },
            onData: { data in
                if received.withLock({ $0 += data.count; return $0 }) > 1 << 20 { task.withLock { $0 }?.cancel() }
            },
            onComplete: { finish(word($0.failure)) })
        task.withLock { $0 = started }
    }
    done.wait()
    return outcome.withLock { $0 }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Waits until the fault server has closed every connection, no curl handle is alive and (given
/// a baseline) the descriptors are back to its count, then returns the figures. The wait is a
/// poll bounded by the clock (30 s): on a busy machine the server's event loop may close, or even
/// accept, a connection seconds late, while a real leak never returns and is reported after the
/// bound. The poll reads only the cheap counts: the full figures trim the heap, which on a loaded
/// machine took so long that a bound counted in polls (3,000 of 10 ms) lasted over ten minutes.
func settled(_ server: FaultServer, backTo baseline: ProcessFigures? = nil) -> ProcessFigures {
    let deadline = DispatchTime.now() + .seconds(30)
    while DispatchTime.now() < deadline {
        let isBack = baseline.map { count("/proc/self/fd") <= $0.descriptors } ?? true
        if server.openConnections == 0, Transport._liveCurlHandleCount == 0, Transport._liveCurlTransferCount == 0, isBack { break }
        usleep(10_000)
    }
    return ProcessFigures()
}

func probeFaults(server _: TestServer) -> Never {
    let semaphore = DispatchSemaphore(value: 0)
    let serverBox = Mutex<FaultServer?>(nil)
    Task {
        let started = try? await FaultServer.start()
        serverBox.withLock { $0 = started }
        semaphore.signal()
    }
    semaphore.wait()
    guard let server = serverBox.withLock({ $0 }), let testCA = try? CertificateBundle(pem: TestServer.certificateAuthorityPEM) else {
        print("faults the fault server did not start")
        exit(1)
    }
    // glibc raises its mmap threshold to the size of each large block freed (up to 32 MiB): after
    // a 64 MiB body, the next large buffers come from the heap arenas, whose freed pages stay
    // fragmented and resident (RSS then steps up by ~7 MB per 64 MiB body and stays, with no
    // byte leaked). A fixed threshold (-3: M_MMAP_THRESHOLD) keeps large buffers in mmap, so RSS
    // measures what the library and the server hold.
    _ = mallocOption(-3, 1 << 20)
    var configuration = Configuration(tls: TLSConfiguration(trustRoots: .replacingSystem(with: testCA)))
    configuration.timeouts.idle = .milliseconds(300)
    // Warm up: the first TLS request and each style's first use start threads that stay.
    let warmUp = Transport(configuration: configuration)
    for style in ["blocking", "async", "callback"] {
        _ = runFault(ProbeFault(name: "warm", fault: .ok), style: style, server: server, transport: warmUp)
        _ = runFault(ProbeFault(name: "warm-tls", fault: .ok, tls: true), style: style, server: server, transport: warmUp)
    }
    let done = DispatchSemaphore(value: 0)
    warmUp.shutdown { done.signal() }
    done.wait()
    let baseline = settled(server)
    print("faults baseline fd=\(baseline.descriptors) threads=\(baseline.threads) handles=\(baseline.handles) rss=\(baseline.residentBytes) maximumBodySize=\(configuration.maximumBodySize)")
    var peakResident = baseline.residentBytes
    for probe in faultProbeList {
        for style in ["blocking", "async", "callback"] {
            let transport = Transport(configuration: configuration)
            let before = ProcessFigures()
            let outcome = runFault(probe, style: style, server: server, transport: transport)
            transport.shutdown { done.signal() }
            done.wait()
            let after = settled(server, backTo: baseline)
            peakResident = max(peakResident, after.residentBytes)
            let cpu = String(format: "%.3f", after.cpuSeconds - before.cpuSeconds)
            print("fault name=\(probe.name) tls=\(probe.tls) style=\(style) outcome=\(outcome) fd=\(after.descriptors) threads=\(after.threads) handles=\(after.handles) transfers=\(after.transfers) rss=\(after.residentBytes) cpu=\(cpu)")
        }
    }
    _ = settled(at: baseline.threads, within: 5) { count("/proc/self/task") }  // worker threads finish exiting
    let end = ProcessFigures()
    print("faults end fd=\(end.descriptors) threads=\(end.threads) handles=\(end.handles) rss=\(end.residentBytes) peakRss=\(peakResident)")
    exit(0)
}
