// Completion handlers in the NSURLSession / AFNetworking style, on a queue of the caller's choice.
//
//   swift run LegacyCallbacks            against the embedded loopback server (no network)
//   swift run LegacyCallbacks <baseURL>  against your own server (its /json and /delay/<ms> paths)
import CurlBridge
import CurlBridgeTestServer
import Foundation

struct Item: Decodable {
    let id: Int
    let name: String
}

func run(baseURL: URL) -> Never {
    let client = CallbackClient(transport: Transport(configuration: Configuration(baseURL: baseURL)))
    let resultsQueue = DispatchQueue(label: "example.results")
    let group = DispatchGroup()

    group.enter()
    client.send(.get("json"), queue: resultsQueue) { result in
        defer { group.leave() }
        switch result {
        case .success(let response):
            let item = try? response.validate().decode(Item.self)
            print("json: \(response.status.code), item \(item.map { "\($0.id) \($0.name)" } ?? "undecodable")")
        case .failure(let error):
            print("json failed: \(error)")
        }
    }

    group.enter()
    client.send(.post("echo").form(["user": "ada", "remember": "yes"])) { result in
        defer { group.leave() }
        print("form post: \((try? result.get().status.code).map(String.init) ?? "failed")")
    }

    group.enter()
    let slow = client.send(.get("delay/5000")) { result in
        defer { group.leave() }
        if case .failure(let error) = result { print("cancelled request: \(error.code)") }
    }
    resultsQueue.asyncAfter(deadline: .now() + .milliseconds(100)) { slow.cancel() }

    group.notify(queue: resultsQueue) { exit(0) }
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
