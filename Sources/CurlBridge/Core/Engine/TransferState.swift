import HTTPTypes

/// What one transfer has seen and decided, as a value: the engine's callbacks (curl's, for a
/// ``CurlTransfer``) feed it each header line, body piece, send and progress report, and it
/// answers with a verdict — accept or refuse a line, hold or deliver a head, allow or deny a
/// re-send, pause — that the engine carries out. It calls nothing back and does no I/O, so it is
/// tested as a value (`TransferStateTests`).
///
/// The decisions are its parts': ``ResponseHeadGuard`` checks lines, ``ChallengeHold`` keeps a
/// `401` curl may answer, ``ResendRule`` says what may go twice, ``IdleClock`` and
/// ``ProgressThrottle`` pace silence and progress. This value runs them, in order, once.
struct TransferState: ~Copyable {
    /// The request's method: whether its response has a body, and how a refused re-send reads.
    let method: HTTPRequest.Method
    /// What ``ResendRule`` needs to know of the request.
    private let resendFacts: ResendRule.Facts
    /// Whether the engine answers authentication challenges itself (a `401` may not be final).
    private let answersChallenges: Bool
    /// The request's time limits.
    private let timeLimits: TimeLimits

    /// Checks every header line.
    private var headGuard: ResponseHeadGuard
    /// The latest response head's field lines, from the lines the guard accepted.
    private var responseHead = ResponseHeadRecorder()
    /// A `401` waiting while the engine may answer its challenge.
    private var challenge = ChallengeHold()
    /// The idle timeout, if the request has one.
    var idleClock: IdleClock?
    /// When progress is worth reporting.
    private var progressThrottle = ProgressThrottle()
    /// Why the transfer must fail even if the engine says it succeeded (a refused head or body,
    /// a body source's failure, a re-send refused); the first reason wins.
    private(set) var failure: RequestError?
    /// Whether the final head has been handed to the receiver.
    private(set) var headDelivered = false
    /// Whether the request has started going out once.
    private var hasStartedSending = false
    /// The guard's status-line count when the request last started going out.
    private var statusLinesAtLastSend = 0
    /// How many times the request went out again after no answer.
    private var unansweredResends = 0
    /// Whether receiving is paused, by the body sink or the caller.
    private(set) var isReceivePaused = false
    /// Whether sending is paused, waiting for a body stream's producer.
    private(set) var isSendPaused = false

    /// The state of a transfer of `request` beginning at `now` (`MonotonicClock` nanoseconds).
    init(_ request: PreparedRequest, now: UInt64) {
        method = request.method
        resendFacts = ResendRule.Facts(request)
        answersChallenges = request.authentication != nil
        timeLimits = request.timeLimits
        headGuard = ResponseHeadGuard(limit: request.maximumHeaderSize)
        idleClock = request.timeLimits.idleNanoseconds.map { IdleClock(limit: $0, now: now) }
    }

    /// Whether the transfer waits for its consumer or its body's producer: then it is never idle.
    var isPaused: Bool { isReceivePaused || isSendPaused }

    /// Whether the final head is complete (the body, or its trailers, is being read).
    var hasFinalHead: Bool { headGuard.hasFinalHead }

    /// Whether the final head declared a body that ends only when the connection closes.
    var bodyEndsAtClose: Bool { headGuard.bodyEndsAtClose(method: method) }

    /// The head recorded so far.
    mutating func headerBlock() -> ResponseHeaderBlock { responseHead.headerBlock() }

    /// Records why the transfer fails, unless it already has a reason.
    mutating func fail(_ error: RequestError) {
        if failure == nil { failure = error }
    }

    /// A byte moved (or the transfer resumed) at `now`.
    mutating func noteActivity(at now: UInt64) {
        idleClock?.noteActivity(at: now)
    }

    // MARK: Header lines

    /// The first look at a header line arriving at `now`: ``ResponseHeadGuard``'s verdict. A
    /// refused line is recorded as the failure; the engine then stops the transfer.
    mutating func inspect(_ line: UnsafeRawBufferPointer, at now: UInt64) -> ResponseHeadGuard.Verdict {
        noteActivity(at: now)
        let verdict = headGuard.inspect(line)
        if case .reject(let rejection) = verdict { fail(rejection.error) }
        return verdict
    }

    /// What to do once an inspected line is kept.
    enum LineStep: Equatable {
        /// Nothing more: read on.
        case readOn
        /// A head ended: if it is final (status 200 or above), build it and call ``headArrived(_:)``.
        case headEnded
    }

    /// Keeps `line`, which the last ``inspect(_:at:)`` accepted; when the receiver wants heads
    /// (`wantsHeads`) and none was delivered yet, says whether a head just ended. A new status
    /// line means the engine answered a held `401`'s challenge: that head was not final.
    mutating func keep(_ line: UnsafeRawBufferPointer, wantsHeads: Bool) -> LineStep {
        let kind = headGuard.lastLine
        responseHead.take(line, as: kind)
        guard !headDelivered, wantsHeads else { return .readOn }
        switch kind {
        case .blank:
            return .headEnded
        case .statusLine:
            challenge.statusLineArrived()
            return .readOn
        case .headField, .otherField:
            return .readOn
        }
    }

    /// What to do with a final head.
    enum HeadVerdict: Equatable {
        /// A `401` the engine may still answer: wait (its body, or the end, releases it).
        case hold
        /// Hand it to the receiver, then call ``delivered(refusal:)``.
        case deliver
    }

    /// A final `head` ended.
    mutating func headArrived(_ head: ResponseHead) -> HeadVerdict {
        guard ChallengeHold.holds(status: head.status.code, curlAnswersChallenges: answersChallenges) else { return .deliver }
        challenge.hold(head)
        return .hold
    }

    /// The receiver took the final head, or refused it with `refusal`; `false` when refused (the
    /// failure recorded: the engine stops the transfer).
    mutating func delivered(refusal: RequestError?) -> Bool {
        headDelivered = true
        guard let refusal else { return true }
        fail(refusal)
        return false
    }

    // MARK: Body, sending, progress

    /// A piece of the body arrives at `now`; returns a held `401` head that turned out final and
    /// is due for delivery before the piece.
    mutating func bodyArrived(at now: UInt64) -> ResponseHead? {
        noteActivity(at: now)
        return challenge.release()
    }

    /// The body's consumer asked to wait.
    mutating func pauseReceiving() {
        isReceivePaused = true
    }

    /// The consumer is ready again at `now`.
    mutating func resumeReceiving(at now: UInt64) {
        isReceivePaused = false
        noteActivity(at: now)
    }

    /// The body's stream had no bytes ready.
    mutating func pauseSending() {
        isSendPaused = true
    }

    /// The body's stream has bytes again at `now`; `false` when sending was not paused.
    mutating func resumeSending(at now: UInt64) -> Bool {
        guard isSendPaused else { return false }
        isSendPaused = false
        noteActivity(at: now)
        return true
    }

    /// Whether the request may go out (again) now: the first send always; a later one after an
    /// answer (the engine answering a challenge) too; one after no answer only as ``ResendRule``
    /// allows — a denial is recorded as the failure.
    mutating func mayStartSending() -> Bool {
        defer { statusLinesAtLastSend = headGuard.statusLines }
        guard hasStartedSending else {
            hasStartedSending = true
            return true
        }
        guard headGuard.statusLines == statusLinesAtLastSend else { return true }
        let occasion = ResendRule.Occasion.unansweredOnReusedConnection(previousResends: unansweredResends)
        unansweredResends += 1
        guard let denial = ResendRule.denial(occasion, resendFacts) else { return true }
        fail(Self.refusedResend(denial, method: method))
        return false
    }

    /// The failure of a transfer whose connection closed unanswered and may not be sent again.
    private static func refusedResend(_ denial: ResendRule.Denial, method: HTTPRequest.Method) -> RequestError {
        switch denial {
        case .bodyNotRewindable:
            RequestError(.bodyNotRewindable, "the connection closed before any answer, and the request's body stream cannot be sent again")
        case .alreadyResent:
            RequestError(.connectionLost, "the connection closed before any answer, twice")
        case .notIdempotent, .responseStarted:
            RequestError(.connectionLost, "the connection closed before any answer; a \(method.rawValue) request is not sent twice")
        }
    }

    /// Byte counts reported at `now`: restarts the idle clock when they moved; `true` when a
    /// progress report is due.
    mutating func progressed(sent: Int64, received: Int64, at now: UInt64) -> Bool {
        let (moved, due) = progressThrottle.note(sent: sent, received: received, at: now)
        if moved { idleClock?.noteActivity(at: now) }
        return due
    }

    // MARK: The end

    /// The engine finished the transfer, successfully or not: a `401` still held was final and
    /// is due for delivery (a final `401` with no body), when the engine succeeded.
    mutating func finished(succeeded: Bool) -> ResponseHead? {
        succeeded ? challenge.release() : nil
    }

    /// How far the response had come, `connected` telling whether the connection phase was over.
    func phase(connected: Bool) -> TransferPhase {
        if headGuard.hasFinalHead { return .readingBody }
        return connected ? .readingHead : .connecting
    }

    /// Whether a timeout now would be the connect timeout (``TimeLimits/connectLimitApplies(connected:)``).
    func connectLimitApplied(connected: Bool) -> Bool {
        timeLimits.connectLimitApplies(connected: connected)
    }
}

/// How far a response had come when its transfer failed.
enum TransferPhase {
    /// Not connected yet (or no connection was made).
    case connecting
    /// Connected, and the final response head not complete.
    case readingHead
    /// The final head complete: reading the body (or its trailers).
    case readingBody
}
