import CurlBridge
import CurlBridgeTelemetry
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import InMemoryTracing
import MetricsTestKit
import Synchronization
import Testing
import Tracing

/// Metrics and tracing end to end: requests through a real transport to the loopback server, in
/// each client style, observed through swift-metrics' `TestMetrics` and an in-memory tracer.
///
/// Monitors run on their own queues after the request completes, so every check first waits for
/// the condition it checks (the count of completed requests or ended spans), never for a time.
@Suite(.hangGuard) struct TelemetryTests {
    /// Waits until `isMet` holds; fails the test at the caller's line if it does not within 60 s.
    private func waitFor(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ isMet: @escaping @Sendable () -> Bool
    ) async throws {
        try #require(await poll(within: .seconds(60), until: isMet), "never happened: \(what)", sourceLocation: sourceLocation)
    }

    @Test(arguments: ClientStyle.allCases)
    func metricsCountRequestsByStatusErrorsByCodeDurationsAndBytes(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let metrics = TestMetrics()
        let durations = Mutex<[Int64]>([])
        let transport = Fixture.transport(server) {
            $0.enableMetrics(dimensions: [("style", style.rawValue)], factory: metrics)
            $0.eventMonitors.append(ClosureEventMonitor(requestDidComplete: { _, _, result, duration in
                if (try? result.get().status) == .ok { durations.withLock { $0.append(nanoseconds(duration)) } }
            }))
        }
        let refused = try RefusingPort()
        for _ in 0..<3 { #expect(try await style.send(.get("echo"), through: transport).get().status == .ok) }
        #expect(try await style.send(.post("echo").body("hello"), through: transport).get().status == .ok)
        #expect(try await style.send(.get("status/500"), through: transport).get().status.code == 500)
        #expect(await style.send(.get("http://127.0.0.1:\(refused.port)/"), through: transport).failure?.code == .connectFailed)
        try await waitFor("6 requests counted") { metrics.counterTotal(label: "curlbridge_requests_total") == 6 }

        let dimension = ("style", style.rawValue)
        let okGet = [("method", "GET"), ("status", "200"), dimension]
        #expect(try metrics.expectCounter("curlbridge_requests_total", okGet).totalValue == 3)
        #expect(try metrics.expectCounter("curlbridge_requests_total", [("method", "POST"), ("status", "200"), dimension]).totalValue == 1)
        #expect(try metrics.expectCounter("curlbridge_requests_total", [("method", "GET"), ("status", "500"), dimension]).totalValue == 1)
        #expect(try metrics.expectCounter("curlbridge_requests_total", [("method", "GET"), ("status", "error"), dimension]).totalValue == 1)
        #expect(try metrics.expectCounter("curlbridge_request_errors_total", [("code", "connectFailed"), dimension]).totalValue == 1)
        #expect(metrics.counterTotal(label: "curlbridge_request_errors_total") == 1, "a 500 is a response, not an error")
        // The timer holds the durations the transport measured (a coarse clock: some may be 0).
        try await waitFor("4 durations seen") { durations.withLock { $0.count } == 4 }
        let timed = try metrics.expectTimer("curlbridge_request_duration_seconds", okGet).values
            + metrics.expectTimer("curlbridge_request_duration_seconds", [("method", "POST"), ("status", "200"), dimension]).values
        #expect(timed.sorted() == durations.withLock { $0 }.sorted())
        #expect(try metrics.expectTimer("curlbridge_request_duration_seconds", [("method", "GET"), ("status", "error"), dimension]).values.count == 1)
        #expect(try metrics.expectCounter("curlbridge_request_body_bytes_total", [("method", "POST"), dimension]).totalValue == 5)
        #expect(try metrics.expectCounter("curlbridge_request_body_bytes_total", [("method", "GET"), dimension]).totalValue == 0)
        #expect(try metrics.expectCounter("curlbridge_response_body_bytes_total", [("method", "GET"), dimension]).totalValue > 0)
        #expect(metrics.counterTotal(label: "curlbridge_retries_total") == 0)
    }

    @Test(arguments: ClientStyle.allCases)
    func oneClientSpanPerRequestWithHTTPAttributesAndItsTraceparentSent(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let tracer = W3CTestTracer()
        let transport = Fixture.transport(server) { $0.enableTracing(tracer: tracer) }
        let response = try await style.send(.get("echo?page=2&access_token=canary"), through: transport).get()
        try await waitFor("the span ended") { tracer.recorded.finishedSpans.count == 1 }

        let span = try #require(tracer.recorded.finishedSpans.only)
        #expect(span.operationName == "GET")
        #expect(span.kind == .client)
        #expect(span.parentSpanID == nil)
        let attributes = span.attributes
        #expect(attributes["http.request.method"]?.toSpanAttribute() == "GET")
        #expect(attributes["url.full"]?.toSpanAttribute()
            == .string("http://127.0.0.1:\(server.httpPort)/echo?page=2&access_token=REDACTED"))
        #expect(attributes["server.address"]?.toSpanAttribute() == "127.0.0.1")
        #expect(attributes["server.port"]?.toSpanAttribute() == .int64(Int64(server.httpPort)))
        #expect(attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(attributes["network.protocol.version"]?.toSpanAttribute() == "1.1")
        #expect(attributes["network.peer.address"]?.toSpanAttribute() == "127.0.0.1")
        #expect(attributes["error.type"] == nil && attributes["http.request.resend_count"] == nil)
        #expect(span.status == nil)
        #expect(span.events.map(\.name) == ["attempt"])
        #expect(try response.echo().header("traceparent") == [W3CTestTracer.traceparent(traceID: span.traceID, spanID: span.spanID)])
        #expect(tracer.endCount(ofSpan: span.spanID) == 1)
    }

    /// The span's parent is the trace context of the task that sends: an async caller's, or that of
    /// a task calling the callback client; a blocking call runs on a thread outside any task, and
    /// starts a trace of its own.
    @Test(arguments: ClientStyle.allCases)
    func callersSpanIsTheParentWhenTheCallIsMadeInATask(style: ClientStyle) async throws {
        let tracer = W3CTestTracer()
        let transport = Fixture.transport(try await Fixture.server()) { $0.enableTracing(tracer: tracer) }
        let (caller, response) = try await tracer.withSpan("caller") { span in
            (span.context.inMemorySpanContext, try await style.send(.get("echo"), through: transport).get())
        }
        try await waitFor("both spans ended") { tracer.recorded.finishedSpans.count == 2 }
        let request = try #require(tracer.recorded.finishedSpans.first { $0.operationName == "GET" })
        if style == .blocking {
            #expect(request.parentSpanID == nil)
            #expect(request.traceID != caller?.traceID)
        } else {
            #expect(request.parentSpanID == caller?.spanID)
            #expect(request.traceID == caller?.traceID)
        }
        #expect(try response.echo().header("traceparent") == [W3CTestTracer.traceparent(traceID: request.traceID, spanID: request.spanID)])
    }

    @Test(arguments: ClientStyle.allCases)
    func failedRequestsEndTheirSpanOnceWithErrorTypeAndStatus(style: ClientStyle) async throws {
        let tracer = W3CTestTracer()
        let transport = Fixture.transport(try await Fixture.server()) { $0.enableTracing(tracer: tracer) }
        let tracing = try #require(transport.configuration.interceptors.last as? TracingInterceptor)
        let refused = try RefusingPort()
        _ = await style.send(.get("http://127.0.0.1:\(refused.port)/"), through: transport)
        _ = await style.send(.get("status/503"), through: transport)
        try await waitFor("both spans ended") { tracer.recorded.finishedSpans.count == 2 }

        let spans = tracer.recorded.finishedSpans
        let refusedSpan = try #require(spans.first { $0.attributes["http.response.status_code"] == nil })
        #expect(refusedSpan.attributes["error.type"]?.toSpanAttribute() == "connectFailed")
        #expect(refusedSpan.status?.code == .error)
        let unavailable = try #require(spans.first { $0.attributes["http.response.status_code"] != nil })
        #expect(unavailable.attributes["error.type"]?.toSpanAttribute() == "503")
        #expect(unavailable.status?.code == .error)
        #expect(spans.allSatisfy { tracer.endCount(ofSpan: $0.spanID) == 1 })
        #expect(tracing.openSpanCount == 0)
        #expect(tracer.recorded.activeSpans.isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func cancelledRequestEndsItsSpanOnce(style: ClientStyle) async throws {
        let tracer = W3CTestTracer()
        let server = try await Fixture.server()
        let transport = Fixture.transport(server) { $0.enableTracing(tracer: tracer) }
        let tracing = try #require(transport.configuration.interceptors.last as? TracingInterceptor)
        async let outcome = style.send(.get("never-respond"), through: transport)
        try await transport.waitUntilInFlight(1)
        transport.cancelAll()
        #expect(await outcome.failure?.code == .cancelled)
        // One more request: the monitor queue is serial, so once its span has ended any wrong
        // second end of the cancelled one would have been counted.
        await transport.drainEvents()
        try await waitFor("both spans ended") { tracer.recorded.finishedSpans.count == 2 }

        let cancelledURL = SpanAttribute.string("http://127.0.0.1:\(server.httpPort)/never-respond")
        let span = try #require(tracer.recorded.finishedSpans.first { $0.attributes["url.full"]?.toSpanAttribute() == cancelledURL })
        #expect(span.attributes["error.type"]?.toSpanAttribute() == "cancelled")
        #expect(span.status?.code == .error)
        #expect(tracer.endCount(ofSpan: span.spanID) == 1)
        #expect(tracing.openSpanCount == 0)
    }

    @Test(arguments: ClientStyle.allCases)
    func retriedRequestIsOneSpanWithTheSameTraceparentOnEveryAttemptAndCountedRetries(style: ClientStyle) async throws {
        let tracer = W3CTestTracer()
        let metrics = TestMetrics()
        let sent = Mutex<[String]>([])
        let transport = Fixture.transport(try await Fixture.server()) {
            $0.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .zero)
            $0.enableTracing(tracer: tracer)
            $0.enableMetrics(factory: metrics)
            $0.eventMonitors.append(ClosureEventMonitor(attemptDidStart: { request, _, _ in
                sent.withLock { $0 += request.headerFields[values: HTTPField.Name("traceparent")!] }
            }))
        }
        let response = try await style.send(.get("flaky?key=\(UUID().uuidString)&failures=2"), through: transport).get()
        #expect(response.attempts.count == 3)
        try await waitFor("the span ended and the request counted") {
            tracer.recorded.finishedSpans.count == 1 && metrics.counterTotal(label: "curlbridge_requests_total") == 1
        }

        let span = try #require(tracer.recorded.finishedSpans.only)
        #expect(span.attributes["http.request.resend_count"]?.toSpanAttribute() == 2)
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(span.status == nil)
        #expect(span.events.map(\.name) == ["attempt", "retry", "attempt", "retry", "attempt"])
        let traceparent = W3CTestTracer.traceparent(traceID: span.traceID, spanID: span.spanID)
        try await waitFor("3 attempts seen") { sent.withLock { $0.count } == 3 }
        #expect(sent.withLock { $0 } == [traceparent, traceparent, traceparent])
        #expect(try metrics.expectCounter("curlbridge_retries_total", [("reason", "503")]).totalValue == 2)
        #expect(try metrics.expectCounter("curlbridge_requests_total", [("method", "GET"), ("status", "200")]).totalValue == 1)
    }

    /// A cancel completes the request at once, while an earlier adapter may still be running:
    /// that adapter's task is cancelled, and the chain stops before the tracing adapter, so no
    /// span starts that nobody would end.
    @Test(arguments: ClientStyle.allCases)
    func requestCancelledWhileAnEarlierAdapterRunsLeavesNoSpan(style: ClientStyle) async throws {
        let tracer = W3CTestTracer()
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let (gate, open) = AsyncStream<Void>.makeStream()
        let (leaving, leave) = AsyncStream<Bool>.makeStream()
        let transport = Fixture.transport(try await Fixture.server()) {
            $0.interceptors.append(Interceptor(adapt: { request, _ in
                enter.yield()
                for await _ in gate { break }
                leave.yield(Task.isCancelled)
                return request
            }))
            $0.enableTracing(tracer: tracer)
        }
        let tracing = try #require(transport.configuration.eventMonitors.last as? TracingInterceptor)
        async let outcome = style.send(.get("echo"), through: transport)
        for await _ in entered { break }
        transport.cancelAll()
        #expect(await outcome.failure?.code == .cancelled)
        open.yield()
        var iterator = leaving.makeAsyncIterator()
        #expect(await iterator.next() == true, "the adapters' task was not cancelled with the request")
        #expect(tracing.openSpanCount == 0)
        #expect(tracer.recorded.activeSpans.isEmpty && tracer.recorded.finishedSpans.isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func requestFailingBeforeAnyAttemptLeavesNoSpanOpenAndCountsItsError(style: ClientStyle) async throws {
        let tracer = W3CTestTracer()
        let metrics = TestMetrics()
        let transport = Fixture.transport(try await Fixture.server()) {
            $0.enableTracing(tracer: tracer)
            $0.enableMetrics(factory: metrics)
        }
        let tracing = try #require(transport.configuration.interceptors.last as? TracingInterceptor)
        #expect(await style.send(.get("ftp://127.0.0.1/file"), through: transport).failure?.code == .unsupportedScheme)
        // The adapters run before the URL is checked, so a span may have started; it must end.
        try await waitFor("the failure counted and no span open") {
            metrics.counterTotal(label: "curlbridge_request_errors_total") == 1 && tracing.openSpanCount == 0
                && tracer.recorded.activeSpans.isEmpty
        }
        #expect(tracer.recorded.finishedSpans.allSatisfy { tracer.endCount(ofSpan: $0.spanID) == 1 })
    }
}

/// `duration` in whole nanoseconds, as a swift-metrics timer records it.
private func nanoseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
}
