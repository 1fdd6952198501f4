// Async/await requests in a task group, multiplexed over one HTTP/2 connection; then, against
// the embedded server, a download that is cut, resumed, streamed and uploaded again, and
// redirects, cookies and pinning, and retries of a failing server.
//
//   swift run AsyncTasks            against the embedded loopback server over TLS (no network)
//   swift run AsyncTasks <baseURL>  against your own server (its /delay/<ms> path)
import CurlBridge
import CurlBridgeTestServer
import Foundation

func run(configuration: Configuration, embeddedHTTPSPort: Int? = nil) async {
    let transport = Transport(configuration: configuration)
    let client = AsyncClient(transport: transport)
    let clock = ContinuousClock()
    let started = clock.now

    let responses = await withTaskGroup(of: (Int, Result<Response, RequestError>).self) { group in
        for index in 0..<20 {
            group.addTask {
                do throws(RequestError) {
                    return (index, .success(try await client.send(.get("delay/200"))))
                } catch {
                    return (index, .failure(error))
                }
            }
        }
        return await group.reduce(into: [(Int, Result<Response, RequestError>)]()) { $0.append($1) }
    }
    for (index, result) in responses.sorted(by: { $0.0 < $1.0 }) {
        switch result {
        case .success(let response):
            print("request \(index): \(response.status.code) over \(response.httpVersion), local port \(response.metrics.localPort), reused: \(response.metrics.reusedConnection)")
        case .failure(let error):
            print("request \(index) failed: \(error)")
        }
    }
    print("20 requests of 200 ms each took \(clock.now - started) in all")

    // Cancelling the task cancels the transfer in curl.
    let slow = Task { try await client.send(.get("delay/5000")) }
    try? await Task.sleep(for: .milliseconds(100))
    slow.cancel()
    if case .failure(let error as RequestError) = await slow.result { print("cancelled task: \(error.code)") }
    if let embeddedHTTPSPort {
        await demonstrateTransfers(client)
        await demonstrateSecurity(client, httpsPort: embeddedHTTPSPort)
        await demonstrateResilience(client)
    }
    await transport.shutdown()
}

if let argument = CommandLine.arguments.dropFirst().first, let url = URL(string: argument) {
    await run(configuration: Configuration(baseURL: url))
} else {
    do {
        let server = try await TestServer.start()
        print("embedded server at \(server.httpsURL)")
        // Trust the test CA alone, and pin the server's key (AFSecurityPolicy's public-key mode).
        var tls = TLSConfiguration(trustRoots: .replacingSystem(with: try CertificateBundle(pem: TestServer.certificateAuthorityPEM)))
        tls.pins["127.0.0.1"] = try .publicKeys([TestServer.serverPublicKeyPin])
        await run(configuration: Configuration(baseURL: server.httpsURL, tls: tls), embeddedHTTPSPort: server.httpsPort)
        try await server.shutdown()
    } catch {
        print("the embedded server did not start: \(error)")
    }
}
