@testable import CurlBridge
import Testing

/// ``ResendRule`` case by case: every occasion against every combination of facts.
@Suite("Resend rule")
struct ResendRuleTests {
    typealias Rule = ResendRule
    static let safe = Rule.Facts(isIdempotent: true, isRewindable: true)
    static let post = Rule.Facts(isIdempotent: false, isRewindable: true)
    static let stream = Rule.Facts(isIdempotent: true, isRewindable: false)
    static let postedStream = Rule.Facts(isIdempotent: false, isRewindable: false)

    @Test("a policy retry needs an idempotent request with a body that can be read again")
    func policyRetry() {
        #expect(Rule.denial(.policyRetry, Self.safe) == nil)
        #expect(Rule.denial(.policyRetry, Self.post) == .notIdempotent)
        #expect(Rule.denial(.policyRetry, Self.stream) == .bodyNotRewindable)
        #expect(Rule.denial(.policyRetry, Self.postedStream) == .notIdempotent)
    }

    @Test("a retrier's judgement replaces idempotency, never the body rule; so does a 307/308 redirect")
    func retrierAndRedirect() {
        for occasion in [Rule.Occasion.retrierRetry, .redirectKeepingBody] {
            #expect(Rule.denial(occasion, Self.safe) == nil)
            #expect(Rule.denial(occasion, Self.post) == nil)
            #expect(Rule.denial(occasion, Self.stream) == .bodyNotRewindable)
            #expect(Rule.denial(occasion, Self.postedStream) == .bodyNotRewindable)
        }
    }

    @Test("a closing HTTP/2 session: once, before any answer, and only what is safe to repeat")
    func closingSession() {
        #expect(Rule.denial(.closingSession(responseStarted: false, alreadyResent: false), Self.safe) == nil)
        #expect(Rule.denial(.closingSession(responseStarted: true, alreadyResent: false), Self.safe) == .responseStarted)
        #expect(Rule.denial(.closingSession(responseStarted: false, alreadyResent: true), Self.safe) == .alreadyResent)
        #expect(Rule.denial(.closingSession(responseStarted: false, alreadyResent: false), Self.post) == .notIdempotent)
        #expect(Rule.denial(.closingSession(responseStarted: false, alreadyResent: false), Self.stream) == .bodyNotRewindable)
    }

    @Test("curl's re-send on a reused connection: once, and only what is safe to repeat")
    func reusedConnection() {
        #expect(Rule.denial(.unansweredOnReusedConnection(previousResends: 0), Self.safe) == nil)
        #expect(Rule.denial(.unansweredOnReusedConnection(previousResends: 1), Self.safe) == .alreadyResent)
        #expect(Rule.denial(.unansweredOnReusedConnection(previousResends: 0), Self.post) == .notIdempotent)
        #expect(Rule.denial(.unansweredOnReusedConnection(previousResends: 0), Self.stream) == .bodyNotRewindable)
    }

    @Test("an attempt's record names the denials it has words for")
    func recordedDenials() {
        #expect(Rule.Denial.notIdempotent.retryDenial == .notIdempotent)
        #expect(Rule.Denial.bodyNotRewindable.retryDenial == .bodyNotRewindable)
        #expect(Rule.Denial.responseStarted.retryDenial == nil)
        #expect(Rule.Denial.alreadyResent.retryDenial == nil)
    }

    @Test("the facts of a request: its method's idempotency (or its mark), and its body")
    func factsOfARequest() {
        #expect(Rule.Facts(Request.get("http://origin.test/")) == Self.safe)
        #expect(Rule.Facts(Request.post("http://origin.test/").body("x")) == Self.post)
        #expect(Rule.Facts(Request.post("http://origin.test/").body("x").idempotent()) == Self.safe)
    }
}
