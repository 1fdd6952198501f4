// Completion handlers in the NSURLSession / AFNetworking style, delivered on the main thread and
// driven by its run loop — the shape of an app whose UI code lives on the main thread. The client
// is made with `completionQueue: .main`; `RunLoop.main` runs on the main thread and drains the
// main queue, so every completion and progress handler runs there, in order, as with
// NSURLSession's `delegateQueue: .main`. A run-loop timer cancels a slow request (the completion still
// runs, once, with `.cancelled`), and a download reports its progress there too.
//
//   swift run LegacyCallbacks            against the embedded loopback server (no network)
//   swift run LegacyCallbacks <baseURL>  against your own server (its /json, /echo,
//                                        /bytes/<n> and /delay/<ms> paths)
//
// Exits 1 if a handler runs off the main thread or a result is not the one expected.
import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization

struct Item: Decodable {
    let id: Int
    let name: String
}

/// What the handlers report, and how many requests are still out. Only the main thread touches
/// it in this program; the lock is what lets the compiler prove that no other thread can.
final class Ledger: Sendable {
    private let state = Mutex((outstanding: 0, progressReports: 0, problems: [String]()))

    func start() { state.withLock { $0.outstanding += 1 } }

    /// Records the end of a request; `problem` is what was wrong with it, if anything.
    func finish(_ name: String, problem: String? = nil) {
        state.withLock { state in
            state.outstanding -= 1
            if !Thread.isMainThread { state.problems.append("\(name): a handler ran off the main thread") }
            if let problem { state.problems.append("\(name): \(problem)") }
        }
    }

    /// Records a progress report.
    func progress() {
        state.withLock { state in
            state.progressReports += 1
            if !Thread.isMainThread { state.problems.append("progress: a handler ran off the main thread") }
        }
    }

    var progressReports: Int { state.withLock { $0.progressReports } }
    var outstanding: Int { state.withLock { $0.outstanding } }
    var problems: [String] { state.withLock { $0.problems } }
}

func run(baseURL: URL) -> Int32 {
    let client = CallbackClient(transport: Transport(configuration: Configuration(baseURL: baseURL)), completionQueue: .main)
    let ledger = Ledger()

    ledger.start()
    client.send(.get("json")) { result in
        let item = try? result.get().validate().decode(Item.self)
        print("json: item \(item.map { "\($0.id) \($0.name)" } ?? "missing"), on the main thread: \(Thread.isMainThread)")
        ledger.finish("json", problem: item == nil ? "no item: \(result)" : nil)
    }

    ledger.start()
    client.send(.post("echo").form(["user": "ada", "remember": "yes"])) { result in
        let status = (try? result.get().status.code) ?? 0
        print("form post: \(status)")
        ledger.finish("form post", problem: status == 200 ? nil : "status \(status)")
    }

    // A download whose progress handler could drive a progress view: on the main thread too.
    let length = 2_000_000
    let destination = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-callbacks-\(UUID().uuidString).bin")
    ledger.start()
    client.download(.get("bytes/\(length)"), to: destination) { _ in
        ledger.progress()
    } completion: { result in
        let written = (try? result.get().bytesWritten) ?? -1
        print("download: \(written) bytes, \(ledger.progressReports) progress reports on the main thread")
        try? FileManager.default.removeItem(at: destination)
        let reported = ledger.progressReports > 0
        ledger.finish("download", problem: written != length ? "\(result)" : reported ? nil : "no progress report")
    }

    // A slow request, cancelled from a run-loop timer: the completion still runs, once.
    ledger.start()
    let slow = client.send(.get("delay/30000")) { result in
        guard case .failure(let error) = result else { return ledger.finish("cancel", problem: "it was not cancelled") }
        print("cancelled request: \(error.code)")
        ledger.finish("cancel", problem: error.code == .cancelled ? nil : "\(error.code)")
    }
    _ = Timer.scheduledTimer(withTimeInterval: 0.1, repeats: false) { _ in slow.cancel() }

    // The main thread's run loop: timers, and the main queue where the handlers run.
    let deadline = Date(timeIntervalSinceNow: 60)
    while ledger.outstanding > 0, Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.1))
    }
    var problems = ledger.problems
    if ledger.outstanding > 0 { problems.append("\(ledger.outstanding) requests never completed") }
    for problem in problems { print("FAILED: \(problem)") }
    if problems.isEmpty { print("ok") }
    return problems.isEmpty ? 0 : 1
}

if let argument = CommandLine.arguments.dropFirst().first, let url = URL(string: argument) {
    exit(run(baseURL: url))
} else {
    do {
        let server = try TestServer.startAndWait()
        print("embedded server at \(server.httpURL)")
        let status = run(baseURL: server.httpURL)
        try server.shutdownAndWait()
        exit(status)
    } catch {
        print("the embedded server did not start: \(error)")
        exit(1)
    }
}
