import CoreMetrics
import CurlBridge
@testable import CurlBridgeTelemetry
import Foundation
import HTTPTypes
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// The telemetry pieces as values, no sockets: `url.full` redaction, attribute mapping, header
/// injection, and the monitors driven by calling their methods as the lifecycle does.
@Suite("Telemetry units")
struct TelemetryUnitTests {
    private static let sensitive = TracingInterceptor.standardSensitiveQueryNames

    private func resolve(_ request: Request, base: String? = nil) -> RequestTarget? {
        RequestTarget(request, baseURL: base.flatMap(URL.init(string:)), sensitiveQueryNames: Self.sensitive)
    }

    @Test func relativeURLResolvesAgainstTheBaseAsADirectoryWithQueryItemsAppended() throws {
        let request = Request.get("users/42?expand=1").query("page", "2").query("q", "a b&c")
        let target = try #require(resolve(request, base: "http://api.example.com:8080/v1"))
        #expect(target.redactedURL == "http://api.example.com:8080/v1/users/42?expand=1&page=2&q=a%20b%26c")
        #expect(target.host == "api.example.com")
        #expect(target.port == 8080)
        let rooted = try #require(resolve(.get("/health"), base: "http://api.example.com/v1/"))
        #expect(rooted.redactedURL == "http://api.example.com/health")
        #expect(rooted.port == 80)
    }

    @Test func sensitiveQueryValuesAndUserInfoAreRedactedAndTheFragmentDropped() throws {
        let request = Request.get("https://alice:s3cret@example.com/a?Token=abc&x=1&%61pi_key=k#frag")
            .query("X-Amz-Signature", "sig").query("flag", nil)
        let target = try #require(resolve(request))
        #expect(target.redactedURL
            == "https://REDACTED:REDACTED@example.com/a?Token=REDACTED&x=1&%61pi_key=REDACTED&X-Amz-Signature=REDACTED&flag")
        #expect(target.port == 443)
        #expect(!target.redactedURL.contains("s3cret") && !target.redactedURL.contains("alice"))
    }

    @Test func ipv6HostLosesItsBrackets() throws {
        let target = try #require(resolve(.get("http://[::1]:9000/x")))
        #expect(target.host == "::1")
        #expect(target.port == 9000)
    }

    @Test func relativeURLWithoutBaseHasNoTarget() {
        #expect(resolve(.get("users")) == nil)
    }

    @Test func unknownMethodIsOtherInLabelsAndAttributes() throws {
        let request = Request(method: try #require(HTTPRequest.Method("PROPFIND")), url: "http://h/")
        let attributes = HTTPClientSpanAttributes.request(request, target: resolve(request))
        #expect(attributes["http.request.method"]?.toSpanAttribute() == "_OTHER")
        #expect(attributes["http.request.method_original"]?.toSpanAttribute() == "PROPFIND")
        #expect(HTTPClientSpanAttributes.spanName(for: request.method) == "HTTP")
        #expect(HTTPClientSpanAttributes.spanName(for: .get) == "GET")
    }

    @Test func outcomeAttributesForAServerErrorAndAFailure() {
        let served = HTTPClientSpanAttributes.outcome(.success(Self.response(status: 503, version: .http2)))
        #expect(served["http.response.status_code"]?.toSpanAttribute() == 503)
        #expect(served["error.type"]?.toSpanAttribute() == "503")
        #expect(served["network.protocol.version"]?.toSpanAttribute() == "2")
        #expect(served["http.request.body.size"]?.toSpanAttribute() == 3)
        #expect(served["http.response.body.size"]?.toSpanAttribute() == 7)
        #expect(HTTPClientSpanAttributes.status(.success(Self.response(status: 503)))?.code == .error)
        #expect(HTTPClientSpanAttributes.status(.success(Self.response(status: 404)))?.code == .error)
        #expect(HTTPClientSpanAttributes.status(.success(Self.response(status: 204))) == nil)

        let failed = HTTPClientSpanAttributes.outcome(.failure(RequestError(.connectFailed, "refused")))
        #expect(failed["error.type"]?.toSpanAttribute() == "connectFailed")
        #expect(failed["http.response.status_code"] == nil)
        #expect(HTTPClientSpanAttributes.protocolVersion(.http1_1) == "1.1")
    }

    @Test func injectorReplacesAFieldOfTheSameName() {
        var fields: HTTPFields = [.accept: "*/*"]
        HTTPFieldsInjector().inject("00-a-b-01", forKey: "traceparent", into: &fields)
        HTTPFieldsInjector().inject("00-c-d-01", forKey: "traceparent", into: &fields)
        HTTPFieldsInjector().inject("x", forKey: "not a name", into: &fields)
        #expect(fields[values: HTTPField.Name("traceparent")!] == ["00-c-d-01"])
        #expect(fields.count == 2)
    }

    @Test func metricsMonitorCountsTimesAndLabels() throws {
        let metrics = TestMetrics()
        let monitor = MetricsMonitor(prefix: "api", dimensions: [("client", "billing")], factory: metrics)
        let request = Request.get("http://h/")
        monitor.requestDidComplete(request, id: 1, result: .success(Self.response(status: 200)), duration: .milliseconds(12))
        monitor.requestDidComplete(request, id: 2, result: .success(Self.response(status: 500)), duration: .nanoseconds(5))
        let refused = RequestError(.connectFailed, "refused")
        monitor.requestDidComplete(.post("http://h/"), id: 3, result: .failure(refused), duration: .seconds(1))
        monitor.didScheduleRetry(
            after: AttemptRecord(number: 1, outcome: .response(status: 503), duration: .zero), delay: .zero, id: 2)

        let ok = [("method", "GET"), ("status", "200"), ("client", "billing")]
        #expect(try metrics.expectCounter("api_requests_total", ok).totalValue == 1)
        #expect(try metrics.expectCounter("api_requests_total", [("method", "GET"), ("status", "500"), ("client", "billing")]).totalValue == 1)
        #expect(try metrics.expectCounter("api_requests_total", [("method", "POST"), ("status", "error"), ("client", "billing")]).totalValue == 1)
        #expect(try metrics.expectCounter("api_request_errors_total", [("code", "connectFailed"), ("client", "billing")]).totalValue == 1)
        #expect(try metrics.expectTimer("api_request_duration_seconds", ok).values == [12_000_000])
        #expect(try metrics.expectCounter("api_retries_total", [("reason", "503"), ("client", "billing")]).totalValue == 1)
        let get = [("method", "GET"), ("client", "billing")]
        #expect(try metrics.expectCounter("api_request_body_bytes_total", get).totalValue == 6)
        #expect(try metrics.expectCounter("api_response_body_bytes_total", get).totalValue == 14)
        #expect(metrics.counters(label: "api_request_body_bytes_total").count == 1, "a failure without a response has no bytes")
    }

    @Test func durationConversionSaturates() {
        #expect(MetricsMonitor.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
        #expect(MetricsMonitor.nanoseconds(.seconds(Int64.max)) == .max)
    }

    @Test func tracingSpanPerRequestAcrossAttemptsWithEventsAndResendCount() async throws {
        let tracer = W3CTestTracer()
        let tracing = TracingInterceptor(tracer: tracer, baseURL: URL(string: "http://h:81/base"))
        let request = Request.get("items?token=t")
        let first = try await tracing.adapt(request, for: AttemptContext(requestID: 7, attempt: 1, previousAttempts: []))
        tracing.attemptDidStart(first, id: 7, attempt: 1)
        let record = AttemptRecord(number: 1, outcome: .failure(.connectFailed), duration: .zero)
        tracing.didScheduleRetry(after: record, delay: .milliseconds(250), id: 7)
        let second = try await tracing.adapt(first, for: AttemptContext(requestID: 7, attempt: 2, previousAttempts: [record]))
        tracing.attemptDidStart(second, id: 7, attempt: 2)
        #expect(tracing.openSpanCount == 1)
        tracing.requestDidComplete(second, id: 7, result: .success(Self.response(status: 200)), duration: .seconds(1))

        let span = try #require(tracer.recorded.finishedSpans.only)
        #expect(span.operationName == "GET")
        #expect(span.kind == .client)
        #expect(span.parentSpanID == nil)
        #expect(span.attributes["url.full"]?.toSpanAttribute() == "http://h:81/base/items?token=REDACTED")
        #expect(span.attributes["server.address"]?.toSpanAttribute() == "h")
        #expect(span.attributes["server.port"]?.toSpanAttribute() == 81)
        #expect(span.attributes["http.request.resend_count"]?.toSpanAttribute() == 1)
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(span.status == nil)
        #expect(span.events.map(\.name) == ["attempt", "retry", "attempt"])
        #expect(span.events[1].attributes["curlbridge.retry.delay_ms"]?.toSpanAttribute() == 250)
        let traceparent = W3CTestTracer.traceparent(traceID: span.traceID, spanID: span.spanID)
        for adapted in [first, second] {
            #expect(adapted.headerFields[values: HTTPField.Name("traceparent")!] == [traceparent])
        }
        #expect(tracer.endCount(ofSpan: span.spanID) == 1)
        #expect(tracing.openSpanCount == 0)
    }

    @Test func tracingSpanIsAChildOfTheCallersContext() async throws {
        let tracer = W3CTestTracer()
        let tracing = TracingInterceptor(tracer: tracer)
        let parentSpanID = try await tracer.withSpan("caller") { parent in
            _ = try await tracing.adapt(.get("http://h/"), for: AttemptContext(requestID: 1, attempt: 1, previousAttempts: []))
            return parent.context.inMemorySpanContext?.spanID
        }
        tracing.requestDidComplete(.get("http://h/"), id: 1, result: .failure(RequestError(.cancelled, "cancelled")), duration: .zero)
        let span = try #require(tracer.recorded.finishedSpans.first { $0.operationName == "GET" })
        #expect(span.parentSpanID == parentSpanID)
        #expect(span.status?.code == .error)
        #expect(span.attributes["error.type"]?.toSpanAttribute() == "cancelled")
    }

    @Test func tracingCompletionWithoutAnAttemptEndsNothingAndKeepsNothing() {
        let tracer = W3CTestTracer()
        let tracing = TracingInterceptor(tracer: tracer)
        tracing.requestDidStart(.get("bad url"), id: 3)
        tracing.requestDidComplete(.get("bad url"), id: 3, result: .failure(RequestError(.invalidURL, "bad")), duration: .zero)
        #expect(tracer.recorded.finishedSpans.isEmpty && tracer.recorded.activeSpans.isEmpty)
        #expect(tracing.openSpanCount == 0)
    }

    @Test func adapterRunningAfterItsRequestCompletedStartsNoSpan() async throws {
        let tracer = W3CTestTracer()
        let tracing = TracingInterceptor(tracer: tracer)
        tracing.requestDidComplete(.get("http://h/"), id: 5, result: .failure(RequestError(.cancelled, "cancelled")), duration: .zero)
        let adapted = try await tracing.adapt(.get("http://h/"), for: AttemptContext(requestID: 5, attempt: 1, previousAttempts: []))
        #expect(adapted.headerFields.isEmpty)
        #expect(tracing.openSpanCount == 0)
        #expect(tracer.recorded.activeSpans.isEmpty && tracer.recorded.finishedSpans.isEmpty)
    }

    @Test func recentIDsForgetTheOldestBeyondCapacity() {
        var ids = RecentIDs(capacity: 3)
        for id in 1...5 as ClosedRange<UInt64> { ids.insert(id) }
        #expect(ids.count == 3)
        let forgotten = [ids.remove(1), ids.remove(2)]
        #expect(forgotten == [false, false])
        let remembered = ids.remove(4)
        #expect(remembered)
        ids.insert(6)
        ids.insert(7)
        #expect(ids.count == 3)
        let latest = [ids.remove(5), ids.remove(6), ids.remove(7)]
        #expect(latest == [true, true, true])
    }

    @Test func configurationHelpersInstallTheTypesWhereTheyAct() {
        var configuration = Configuration(baseURL: URL(string: "http://h/"))
        configuration.enableMetrics(factory: TestMetrics())
        let tracing = configuration.enableTracing(tracer: W3CTestTracer())
        #expect(configuration.eventMonitors.count == 2)
        #expect(configuration.eventMonitors.last as? TracingInterceptor === tracing)
        #expect(configuration.interceptors.last as? TracingInterceptor === tracing)
    }

    /// A response with 3 bytes sent and 7 received.
    private static func response(status: Int, version: HTTPVersion = .http1_1) -> Response {
        let metrics = TransferMetrics(
            nameLookup: .zero, connect: .zero, tlsHandshake: .zero, preTransfer: .zero, firstByte: .zero, total: .zero,
            bytesSent: 3, bytesReceived: 7, headerBytes: 0, reusedConnection: false, localPort: 1, remoteAddress: "127.0.0.1",
            remotePort: 80)
        return Response(
            status: .init(code: status), headerFields: [:], body: Data(), url: "http://h/", httpVersion: version, metrics: metrics)
    }
}

extension Collection {
    /// The one element, or `nil` when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
