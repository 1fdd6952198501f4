// A pool of worker threads making blocking calls: the shape of a script or a job runner.
//
//   swift run BlockingWorkers            against the embedded loopback server (no network)
//   swift run BlockingWorkers <baseURL>  against your own server (its /json path)
import CurlBridge
import CurlBridgeTestServer
import Foundation

struct Item: Decodable {
    let id: Int
    let name: String
}

func run(baseURL: URL) {
    let transport = Transport(configuration: Configuration(baseURL: baseURL))
    let client = BlockingClient(transport: transport)

    // The main thread would freeze: the client refuses instead of blocking it.
    do {
        _ = try client.send(.get("json"))
    } catch {
        print("on the main thread: \(error.code) (\(error.message.prefix(60))…)")
    }

    let workers = 4, callsPerWorker = 5
    let finished = DispatchGroup()
    for worker in 1...workers {
        finished.enter()
        Thread.detachNewThread {
            defer { finished.leave() }
            for call in 1...callsPerWorker {
                do {
                    let item = try client.send(.get("json")).validate().decode(Item.self)
                    print("worker \(worker) call \(call): item \(item.id) \"\(item.name)\"")
                } catch {
                    print("worker \(worker) call \(call) failed: \(error)")
                }
            }
        }
    }
    finished.wait()

    Thread.detachNewThread {
        let missing = Result { () throws(RequestError) in try client.send(.get("status/404")).validate() }
        if case .failure(let error) = missing { print("validate(): \(error.code), status \(error.response?.status.code ?? 0)") }
        let slow = Result { () throws(RequestError) in try client.send(Request.get("delay/2000").timeout(total: .milliseconds(300))) }
        if case .failure(let error) = slow { print("a 2 s response with a 300 ms total timeout: \(error.code)") }
        exit(0)
    }
    dispatchMain()
}

if let argument = CommandLine.arguments.dropFirst().first, let url = URL(string: argument) {
    run(baseURL: url)
} else {
    do {
        let server = try TestServer.startAndWait()
        print("embedded server at \(server.httpURL)")
        run(baseURL: server.httpURL)
    } catch {
        print("the embedded server did not start: \(error)")
        exit(1)
    }
}
