import InMemoryTracing
import Instrumentation
import Synchronization
import Tracing

/// A real tracer for telemetry tests: swift-distributed-tracing's `InMemoryTracer` with W3C-shaped
/// ids, which writes `traceparent` as W3C Trace Context says (the in-memory tracer writes only its
/// own `in-memory-*` keys), and counts how often each span is ended (the in-memory span ignores a
/// second `end`, so it cannot tell).
struct W3CTestTracer: Tracer {
    /// The spans, started and finished.
    let recorded = InMemoryTracer(idGenerator: W3CTestTracer.w3cIDs())
    private let ends = EndCounts()

    /// `00-<trace id>-<span id>-01` for the span in `context`.
    static func traceparent(traceID: String, spanID: String) -> String { "00-\(traceID)-\(spanID)-01" }

    /// How many times the span `spanID` was ended.
    func endCount(ofSpan spanID: String) -> Int { ends.counts.withLock { $0[spanID, default: 0] } }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> CountingSpan {
        let span = recorded.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
        return CountingSpan(span: span, ends: ends)
    }

    func activeSpan(identifiedBy context: InstrumentationContext) -> CountingSpan? {
        recorded.activeSpan(identifiedBy: context).map { CountingSpan(span: $0, ends: ends) }
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
    ) where Carrier == Inject.Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject(Self.traceparent(traceID: span.traceID, spanID: span.spanID), forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
    ) where Carrier == Extract.Carrier {}

    /// 32 and 16 lowercase hex digits, counting up.
    private static func w3cIDs() -> InMemoryTracer.IDGenerator {
        let next = Mutex<UInt64>(0)
        let hex: @Sendable (Int) -> String = { width in
            let value = next.withLock { $0 += 1; return $0 }
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: width - digits.count) + digits
        }
        return InMemoryTracer.IDGenerator(nextTraceID: { hex(32) }, nextSpanID: { hex(16) })
    }
}

/// Span ends by span id.
final class EndCounts: Sendable {
    let counts = Mutex<[String: Int]>([:])
}

/// An `InMemorySpan` whose every `end` is counted.
struct CountingSpan: Span {
    let span: InMemorySpan
    let ends: EndCounts

    var context: InstrumentationContext { span.context }
    var operationName: String {
        get { span.operationName }
        nonmutating set { span.operationName = newValue }
    }
    var attributes: SpanAttributes {
        get { span.attributes }
        nonmutating set { span.attributes = newValue }
    }
    var isRecording: Bool { span.isRecording }

    func setStatus(_ status: SpanStatus) { span.setStatus(status) }
    func addEvent(_ event: SpanEvent) { span.addEvent(event) }
    func addLink(_ link: SpanLink) { span.addLink(link) }
    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        span.recordError(error, attributes: attributes, at: instant())
    }

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        ends.counts.withLock { $0[span.spanID, default: 0] += 1 }
        span.end(at: instant())
    }
}
