import CurlBridge
import CurlBridgeTestServer
import Foundation

/// Redirects, what crosses to another origin, the cookie jar and a pin that does not match,
/// against the embedded server (whose `localhost` name is another origin than `127.0.0.1`).
func demonstrateSecurity(_ client: AsyncClient, httpsPort: Int) async {
    do throws(RequestError) {
        let chain = try await client.send(.get("redirect/3"))
        print("followed \(chain.redirects.count) redirects to \(chain.url)")

        // A redirect to another origin: the API key (sensitive) and custom headers stay behind.
        let otherOrigin = "https://localhost:\(httpsPort)/echo"
        let moved = try await client.send(
            Request.get("redirect-to").query("url", otherOrigin).query("set-cookie", "session=demo; Path=/")
                .header("X-Api-Key", "secret-key", sensitive: true)
                .header("X-Request-Id", "42", forwardable: true))
        let received = try moved.decode(EchoReply.self).headers.map { $0[0].lowercased() }
        print("another origin received X-Api-Key: \(received.contains("x-api-key")), X-Request-Id: \(received.contains("x-request-id"))")
        print("cookie jar: \(try client.transport.cookies?.cookies().map { "\($0.name) for \($0.domain)" } ?? [])")

        // A pin for localhost that does not match its key: refused after the handshake, nothing sent.
        var pinned = client.transport.configuration
        pinned.tls.pins["localhost"] = try .publicKeys(["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="])
        do throws(RequestError) {
            _ = try await AsyncClient(transport: Transport(configuration: pinned)).send(.get(otherOrigin))
            print("wrong pin: accepted?!")
        } catch {
            print("wrong pin: \(error.code)")
        }
    } catch {
        print("security demo failed: \(error)")
    }
}
