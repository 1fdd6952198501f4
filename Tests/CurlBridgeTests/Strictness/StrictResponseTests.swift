@testable import CurlBridge
import Foundation
import Testing

/// Replies libcurl 7.88 accepts or misreports, refused through each client with the code that
/// says what happened.
@Suite("Strict responses")
struct StrictResponseTests {
    /// A raw reply and the code it must fail with.
    struct Case: Sendable, CustomStringConvertible {
        let description: String
        let reply: Data
        let code: RequestError.Code

        init(_ description: String, _ reply: String, _ code: RequestError.Code) {
            self.init(description, Data(reply.utf8), code)
        }

        init(_ description: String, _ reply: Data, _ code: RequestError.Code) {
            self.description = description
            self.reply = reply
            self.code = code
        }
    }

    static let cases: [Case] = [
        Case("conflicting Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 12\r\n\r\nhello world!", .protocolError),
        Case("overflowing Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nhello world!", .protocolError),
        Case("Content-Length with chunked", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", .protocolError),
        Case("garbage status line", "HTTP/1.1 OK 200\r\nContent-Length: 2\r\n\r\nok", .protocolError),
        Case("HTTP/0.9", "hello world\n", .protocolError),
        Case("status 2000", "HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok", .protocolError),
        Case("status 600", "HTTP/1.1 600 Custom\r\nContent-Length: 2\r\n\r\nok", .protocolError),
        Case("bare CR in a value", "HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 2\r\n\r\nok", .protocolError),
        Case("space before the colon", "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello world", .protocolError),
        Case("5,000 headers of 1 KB", Self.manyHeaders, .headersTooLarge),
        Case("one 200 KB header", "HTTP/1.1 200 OK\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\nContent-Length: 2\r\n\r\nok", .headersTooLarge),
        Case("six stacked encodings", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip, gzip, gzip, gzip, gzip, gzip\r\nContent-Length: 2\r\n\r\nok", .protocolError),
        Case("10 GB Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\nstart of a body that never ends", .bodyTooLarge),
    ]

    static var manyHeaders: String {
        let line = "X-Filler: \(String(repeating: "f", count: 1_000))\r\n"
        return "HTTP/1.1 200 OK\r\n" + String(repeating: line, count: 5_000) + "Content-Length: 2\r\n\r\nok"
    }

    @Test("a reply that violates HTTP fails once, precisely, in every style", arguments: Self.cases, ClientStyle.allCases)
    func refused(fault: Case, style: ClientStyle) async throws {
        let server = try ScriptedServer([fault.reply])
        let transport = Transport()
        let error = await style.send(.get(server.url), through: transport).failure
        #expect(error?.code == fault.code, "\(String(describing: error))")
        #expect(transport.inFlightCount == 0)
    }

    @Test("the header cap is configurable", arguments: ClientStyle.allCases)
    func configuredHeaderCap(style: ClientStyle) async throws {
        let reply = "HTTP/1.1 200 OK\r\nX-A: \(String(repeating: "a", count: 2_000))\r\nContent-Length: 2\r\n\r\nok"
        let server = try ScriptedServer([Data(reply.utf8), Data(reply.utf8)])
        let small = Transport(configuration: Configuration(maximumHeaderSize: 1_024))
        let refused = await style.send(.get(server.url), through: small).failure
        #expect(refused?.code == .headersTooLarge)
        let large = Transport(configuration: Configuration(maximumHeaderSize: 4_096))
        let response = try await style.send(.get(server.url), through: large).get()
        #expect(response.body == Data("ok".utf8))
    }

    @Test("a stream consumer takes a body whose declared length is above the in-memory cap", arguments: ClientStyle.allCases)
    func declaredLengthAboveCapStreams(style: ClientStyle) async throws {
        let body = Data(repeating: 7, count: 4_096)
        let server = try ScriptedServer([ScriptedServer.response(status: "200 OK", body: body)])
        let transport = Transport(configuration: Configuration(maximumBodySize: 1_024))
        let outcome = await style.stream(.get(server.url), through: transport)
        #expect(outcome.error == nil)
        #expect(outcome.body == body)
    }
}
