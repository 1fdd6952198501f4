// A pool of worker threads making blocking calls: the shape of a script or a job runner. Four
// threads take jobs from one shared queue until it is empty, each job a plain blocking call that
// returns a value or throws; the main thread waits for the pool, as a command-line program does.
// Shows that the blocking client refuses the main thread (it would freeze a run loop or the main
// queue), that a non-2xx status becomes an error only through `validate()`, and the total timeout.
//
//   swift run BlockingWorkers            against the embedded loopback server (no network)
//   swift run BlockingWorkers <baseURL>  against your own server (its /json, /status/404 and
//                                        /delay/<ms> paths)
//
// Exits 1 if a job fails or an error is not the one expected.
import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization

struct Item: Decodable {
    let id: Int
    let name: String
}

/// The jobs, taken by whichever worker is free; a lock, not a queue per worker, balances the load.
final class JobQueue: Sendable {
    private let remaining: Mutex<[Int]>

    init(_ jobs: Range<Int>) { remaining = Mutex(Array(jobs.reversed())) }

    func next() -> Int? { remaining.withLock { $0.popLast() } }
}

/// What went wrong, from any thread.
final class Problems: Sendable {
    private let list = Mutex<[String]>([])

    func add(_ problem: String) { list.withLock { $0.append(problem) } }

    var all: [String] { list.withLock { $0 } }
}

func run(baseURL: URL) -> Int32 {
    let transport = Transport(configuration: Configuration(baseURL: baseURL))
    let client = BlockingClient(transport: transport)
    let problems = Problems()

    // The main thread would freeze: the client refuses instead of blocking it.
    do {
        _ = try client.send(.get("json"))
        problems.add("a blocking call on the main thread was not refused")
    } catch {
        print("on the main thread: \(error.code)")
        if error.code != .blockingRefused { problems.add("main thread: \(error.code)") }
    }

    let jobs = JobQueue(0..<20)
    let pool = DispatchGroup()
    for worker in 1...4 {
        pool.enter()
        Thread.detachNewThread {
            defer { pool.leave() }
            while let job = jobs.next() {
                do {
                    let item = try client.send(.get("json")).validate().decode(Item.self)
                    print("worker \(worker), job \(job): item \(item.id) \"\(item.name)\"")
                } catch {
                    problems.add("job \(job): \(error)")
                }
            }
        }
    }
    pool.wait()

    // Errors, from a worker thread too.
    pool.enter()
    Thread.detachNewThread {
        defer { pool.leave() }
        let missing = Result { () throws(RequestError) in try client.send(.get("status/404")).validate() }
        if case .failure(let error) = missing, error.code == .unacceptableStatus {
            print("validate() on a 404: \(error.code), status \(error.response?.status.code ?? 0)")
        } else {
            problems.add("a 404 passed validate()")
        }
        let slow = Result { () throws(RequestError) in try client.send(Request.get("delay/2000").timeout(total: .milliseconds(300))) }
        if case .failure(let error) = slow, error.code == .totalTimedOut {
            print("a 2 s response with a 300 ms total timeout: \(error.code)")
        } else {
            problems.add("the 300 ms total timeout did not fire")
        }
    }
    pool.wait()
    for problem in problems.all { print("FAILED: \(problem)") }
    if problems.all.isEmpty { print("ok") }
    return problems.all.isEmpty ? 0 : 1
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
