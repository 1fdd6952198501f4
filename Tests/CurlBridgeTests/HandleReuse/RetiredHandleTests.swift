import CCurl
@testable import CurlBridge
import CurlBridgeTestServer
import Testing

/// A transfer that may not reuse a curl handle — every transfer on a libcurl before 8.1.0, which
/// runs these tests — gets a fresh one inside a retired handle object (issue 37: the object's and
/// its error buffer's allocations are what the pool keeps). What it must not get is anything of
/// the request the object served before: no option, header list, error text or reuse count.
@Suite struct RetiredHandleTests {
    @Test func aRetiredHandleIsRevivedWithAFreshCurlHandle() throws {
        let pool = CurlEasyHandlePool(capacity: 2, reusesHandles: false)
        let first = try pool.take()
        try first.set(CURLOPT_URL, "http://127.0.0.1:1/secret?token=a")
        try first.setHeaderLines(["Authorization: Bearer a", "Proxy-Authorization: Basic YTpi"])
        // Port 1 on loopback refuses at once: curl writes its error text, and the URL it tried.
        #expect(curl_easy_perform(first.raw) == CURLE_COULDNT_CONNECT)
        #expect(!first.errorText.isEmpty && !first.info(string: CURLINFO_EFFECTIVE_URL).isEmpty)
        pool.recycle(first)
        #expect(first.isRetired)

        let second = try pool.take()
        #expect(second === first)
        #expect(!second.isRetired)
        #expect(second.info(string: CURLINFO_EFFECTIVE_URL).isEmpty, "the curl handle kept the last request's URL")
        #expect(second.errorText.isEmpty)
        #expect(pool.reuses.value == 0, "a fresh curl handle was counted as a reused one")
    }

    @Test func aHandleThatMayNotBeReusedIsRetiredEvenWhenHandlesAreReused() throws {
        let pool = CurlEasyHandlePool(capacity: 2, reusesHandles: true)
        let handle = try pool.take()
        pool.recycle(handle, reusable: false)
        #expect(handle.isRetired)
        #expect(try pool.take() === handle && pool.reuses.value == 0)
        pool.recycle(handle)
        #expect(!handle.isRetired)
        #expect(try pool.take() === handle && pool.reuses.value == 1)
    }

    @Test func aResetHandleIsTakenBeforeARetiredOne() throws {
        let pool = CurlEasyHandlePool(capacity: 4, reusesHandles: true)
        let (retiring, resetting) = (try pool.take(), try pool.take())
        pool.recycle(retiring, reusable: false)
        pool.recycle(resetting)
        #expect(try pool.take() === resetting && pool.reuses.value == 1)  // it keeps its TLS session cache
        #expect(try pool.take() === retiring && !retiring.isRetired && pool.reuses.value == 1)
    }

    @Test func aFullPoolKeepsNoMoreHandles() throws {
        let pool = CurlEasyHandlePool(capacity: 1, reusesHandles: false)
        let (a, b) = (try pool.take(), try pool.take())
        #expect(a !== b)
        pool.recycle(a)
        pool.recycle(b)
        #expect(a.isRetired && !b.isRetired)  // b was left to be released: the pool was full
        #expect(try pool.take() === a)
    }

    @Test func aRestingPoolLetsGoOfCurlHandlesButKeepsRetiredObjects() throws {
        let pool = CurlEasyHandlePool(capacity: 8, reusesHandles: true)
        let handles = try (0..<4).map { _ in try pool.take() }
        for (index, handle) in handles.enumerated() { pool.recycle(handle, reusable: index.isMultiple(of: 2)) }
        pool.trim(to: 1)
        // Of the two reset handles only the one recycled last is kept (the other is let go, with
        // its curl handle); both retired objects are still there, most recently recycled first.
        #expect(try pool.take() === handles[2] && pool.reuses.value == 1)
        #expect(try pool.take() === handles[3])
        #expect(try pool.take() === handles[1])
        #expect(try pool.take() !== handles[0])
    }

    /// End to end, as an attacker on the server side would look for it: request B, sent after A on
    /// a transport that gives every transfer a fresh curl handle, carries none of A's headers,
    /// credentials or cookies.
    @Test(arguments: ClientStyle.allCases)
    func theNextRequestShowsNothingOfThePreviousOne(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = false }
        let first = Request.get("echo").header("X-Custom", "1").bearerToken("t0k").setHeader("Cookie", "session=a")
        let a = try await style.send(first, through: transport).get().echo()
        #expect(a.header("X-Custom") == ["1"] && a.header("Authorization") == ["Bearer t0k"])
        let b = try await style.send(.get("echo"), through: transport).get().echo()
        #expect(b.header("X-Custom").isEmpty)
        #expect(b.header("Authorization").isEmpty)
        #expect(b.header("Cookie").isEmpty)
        #expect(transport.reusedEasyHandleCount == 0)
    }
}
