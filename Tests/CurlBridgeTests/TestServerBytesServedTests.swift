import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// `TestServer.bytesServed(key:)`: the body bytes the server wrote for requests with `count=KEY`,
/// which the download queue's crash proof sets against the files' bytes.
@Suite(.hangGuard) struct TestServerBytesServedTests {
    typealias Wire = TestServerRoutesTests.Wire

    @Test(arguments: Wire.allCases)
    func aWholeAndARangedGetCountExactlyTheirBodyBytes(wire: Wire) async throws {
        let key = "bytes-served-\(UUID().uuidString)"
        let transport = try await wire.transport()

        let whole = try await TestServerRoutesTests.send(.get("resource/300000?count=\(key)"), through: transport)
        #expect(whole.body.count == 300_000)
        #expect(TestServer.bytesServed(key: key) == 300_000)

        let ranged = try await TestServerRoutesTests.send(
            TestServerRoutesTests.get("resource/300000?count=\(key)", range: "bytes=1000-4999"), through: transport)
        #expect(ranged.status == .partialContent)
        #expect(ranged.body.count == 4000)
        #expect(TestServer.bytesServed(key: key) == 304_000)
        #expect(TestServer.requestCount(key: key) == 2)
    }

    @Test func aRequestWithoutTheKeyOrAHeadCountsNothing() async throws {
        let key = "bytes-served-\(UUID().uuidString)"
        let transport = try await Wire.http1.transport()

        _ = try await TestServerRoutesTests.send(.get("resource/1000"), through: transport)
        _ = try await TestServerRoutesTests.send(.head("resource/1000?count=\(key)"), through: transport)

        #expect(TestServer.bytesServed(key: key) == 0)
        #expect(TestServer.requestCount(key: key) == 1)
    }
}
