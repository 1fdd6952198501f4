#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CCurl

/// One request's transfer in curl: its easy handle and the C callbacks, each a trampoline from
/// curl into the transfer's ``TransferState`` (which decides: accept or refuse a line, hold or
/// deliver a head, allow or deny a re-send, pause) and its ``TransferReceiver`` (which takes the
/// head, the body and the end). The options are set by ``configureRequest(bodyLength:)`` and
/// ``installCallbacks(sendsBody:reportsProgress:)``; the outcome is read in
/// `CurlTransfer+Response.swift`, and the request body is sent in `CurlTransfer+Body.swift`.
///
/// Not `Sendable`: created, driven and finished on its transport's loop. curl's callbacks find it
/// through an unretained pointer; the engine's table keeps it alive while curl holds that pointer.
final class CurlTransfer {
    /// How many transfers exist in the process: a leak check for tests and soaks. A transfer
    /// gives its curl handle back when it leaves the multi handle, so a transfer something still
    /// holds after that shows here, not in ``CurlEasyHandle/liveCount``.
    static let live = LiveCount()

    /// Counts this transfer in ``live`` while it exists (first, so that a transfer whose
    /// initializer throws is uncounted when its stored properties are destroyed).
    private let counted = LiveCount.Member(of: live)
    /// The number of the request it belongs to.
    let id: UInt64
    /// The request being sent.
    let request: PreparedRequest
    /// Where it reports.
    let receiver: any TransferReceiver
    /// The receiver's ``TransferReceiver/wantsHeads``, read once: every header line asks.
    private let receiverWantsHeads: Bool
    /// The curl handle.
    let easy: CurlEasyHandle
    /// What the transfer has seen and decided. Changed on every header line, body piece and
    /// progress report, so its accesses skip run-time exclusivity checks: only its own mutating
    /// methods change it, and they are pure (they call nothing back), on the loop's thread.
    @exclusivity(unchecked) var state: TransferState
    /// Whether the request's host is pinned by certificate (telling a pinning mismatch from an
    /// untrusted certificate when verification fails).
    let pinsCertificates: Bool
    /// Where curl's read callback takes the request body from, unless curl sends it itself.
    var bodyReader: RequestBodyReader?
    /// Whether the easy handle may serve another transfer once this one ends: not after a request
    /// with its own `Host` header, whose host curl keeps on the handle for matching cookies across
    /// `curl_easy_reset` (CVE-2026-6276, unpatched in libcurl 7.88.1-10+deb12u15).
    let leavesHandleReusable: Bool
    /// The TLS connection of a body that ends at the close, asked at the end whether the server
    /// closed it with `close_notify`.
    private(set) var closeNotifyWatch: TLSCloseNotifyWatch?
    /// Whether this transfer started its body's stream, and so may close it: a request sent twice
    /// shares one stream, which belongs to the send that started it.
    var ownsBodyStream = false
    /// The clock its callbacks note activity at, unretained (no reference counting per transfer, or
    /// per callback, as an unowned reference still costs): its loop's, which that loop and the
    /// engine that made the transfer hold, and curl calls back only while the transfer is in the
    /// loop's multi handle (or from the engine's own `curl_easy_pause`).
    private let callbackClock: Unmanaged<CallbackClock>

    /// Creates a transfer on `easy` (fresh, reset by its pool, or a retired object given a fresh
    /// curl handle), configured and ready to join a
    /// multi handle, with a `receiveBufferSize`-byte receive buffer; its callbacks take the time
    /// from `clock`, its loop's.
    ///
    /// - Throws: ``RequestError`` if curl refuses an option.
    init(
        id: UInt64, request: PreparedRequest, receiver: any TransferReceiver, options: CurlEasyOptions, easy: CurlEasyHandle,
        receiveBufferSize: Int, clock: CallbackClock
    ) throws(RequestError) {
        self.id = id
        callbackClock = Unmanaged.passUnretained(clock)
        self.request = request
        self.receiver = receiver
        receiverWantsHeads = receiver.wantsHeads
        self.easy = easy
        state = TransferState(request, now: MonotonicClock.now)
        let defaultHeaderLists = options.defaultHeaderLists.flatMap { $0.matches(request.headerLines) ? $0 : nil }
        leavesHandleReusable = !(defaultHeaderLists?.setsHost ?? Self.setsHost(request.headerLines))
        bodyReader = try RequestBodyReader(request.body)
        pinsCertificates = try options.apply(
            to: easy, url: request.url, usesTLS: request.usesTLS, pinning: request.pinning,
            receiveBufferSize: receiveBufferSize)?.pinsCertificates ?? false
        try options.applyCookiesAndProxy(to: easy, request: request)
        try configureRequest(bodyLength: bodyReader.map(\.length), defaultHeaderLists: defaultHeaderLists)
        // curl's own MIME reader sends multipart bodies, so no callback of ours sees those bytes:
        // the progress counters are then what tells the idle timeout that the upload moves.
        try installCallbacks(sendsBody: bodyReader != nil, reportsProgress: receiver.wantsProgress || request.isMultipart)
        if request.trace != nil || request.reportsSentCookies {
            try easy.enableDebug(CurlDebugRecorder(
                traceLog: request.trace.map { CurlTraceLog($0, requestID: id) }, recordsCookies: request.reportsSentCookies))
        }
    }

    deinit {
        closeBody()
    }

    /// Whether header `lines` set the `Host` header (see ``leavesHandleReusable``).
    static func setsHost(_ lines: [String]) -> Bool {
        lines.contains { $0.isCurlHeaderLine(named: "host") }
    }

    /// The pointer curl hands back to our callbacks.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The transfer behind a callback's context pointer.
    static func from(_ context: UnsafeMutableRawPointer) -> CurlTransfer {
        Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    }

    /// The moment for a callback (see ``CallbackClock``).
    var now: UInt64 { callbackClock._withUnsafeGuaranteedRef(\.now) }

    /// Runs `body` with the transfer behind a callback's context pointer, without retaining it
    /// for the call (a retain and a release per header line and body piece): the engine's table
    /// holds the transfer for as long as curl can call back.
    static func with<Result>(_ context: UnsafeMutableRawPointer, _ body: (CurlTransfer) -> Result) -> Result {
        Unmanaged<CurlTransfer>.fromOpaque(context)._withUnsafeGuaranteedRef(body)
    }

    // MARK: Callbacks (on the loop, inside curl_multi_perform, or curl_easy_pause when resumed)

    /// Hands body bytes to the receiver, after a held `401` head that turned out final.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if let head = state.bodyArrived(at: now), !deliver(head) { return 0 }
        switch receiver.transferReceivedBody(bytes) {
        case .accept:
            return bytes.count
        case .pause:
            state.pauseReceiving()
            return ccurl_writefunc_pause
        case .fail(let error):
            state.fail(error)
            return 0  // curl stops the transfer with CURLE_WRITE_ERROR
        }
    }

    /// Runs a header line through the state; at the blank line ending a final head, lets the
    /// receiver refuse the declared body, then delivers the head unless the state holds it.
    /// Returning less than the line stops curl (with CURLE_WRITE_ERROR).
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Int {
        switch state.inspect(line, at: now) {
        case .accept:
            break
        case .finalHeadEnded(let status, let declaredLength):
            if let refusal = receiver.transferWillReceiveBody(declaredLength: declaredLength, status: status) {
                state.fail(refusal)
                return 0
            }
            if state.bodyEndsAtClose, readHTTPVersion() != .http2 {
                closeNotifyWatch = TLSCloseNotifyWatch(easy)
            }
        case .reject:
            return 0
        }
        guard state.keep(line, wantsHeads: receiverWantsHeads) == .headEnded else { return line.count }
        let code = easy.info(long: CURLINFO_RESPONSE_CODE)
        guard code >= 200 else { return line.count }
        let head = ResponseHead(
            status: .init(code: code), headerFields: state.headerBlock().fields, httpVersion: readHTTPVersion(),
            url: easy.info(string: CURLINFO_EFFECTIVE_URL, reusing: request.url))
        guard state.headArrived(head) == .deliver else { return line.count }
        return deliver(head) ? line.count : 0
    }

    /// Hands the final head to the receiver; `false` (and the failure recorded) when refused.
    func deliver(_ head: ResponseHead) -> Bool {
        state.delivered(refusal: receiver.transferReceivedHead(head))
    }

    /// Notes movement for the idle timeout and forwards curl's progress counters when due.
    func reportProgress(received: curl_off_t, expectedToReceive: curl_off_t, sent: curl_off_t, expectedToSend: curl_off_t) {
        let due = state.progressed(sent: Int64(sent), received: Int64(received), at: now)
        guard due, receiver.wantsProgress else { return }
        receiver.transferProgressed(TransferProgress(
            curlReceived: Int64(received), expectedToReceive: Int64(expectedToReceive),
            sent: Int64(sent), expectedToSend: Int64(expectedToSend)))
    }

    // MARK: Control (on the loop, between curl calls)

    /// Pauses receiving.
    func pauseReceiving() {
        state.pauseReceiving()
        applyPauseState()
    }

    /// Resumes receiving; curl may deliver held-back bytes before this returns. The clock is read
    /// afresh: the callbacks that deliver them are timed at this moment, not at the turn's start.
    func resumeReceiving() {
        state.resumeReceiving(at: freshMoment())
        applyPauseState()
    }

    /// Resumes sending after the body's stream had no bytes ready (the clock read afresh, as for
    /// ``resumeReceiving()``).
    func resumeSending() {
        guard state.resumeSending(at: freshMoment()) else { return }
        applyPauseState()
    }

    /// The moment now, read afresh (``CallbackClock/readAfresh()``).
    private func freshMoment() -> UInt64 {
        callbackClock._withUnsafeGuaranteedRef { $0.readAfresh() }
    }

    /// Tells curl which directions are paused now.
    private func applyPauseState() {
        let mask = (state.isReceivePaused ? ccurl_pause_recv : 0) | (state.isSendPaused ? ccurl_pause_send : 0)
        curl_easy_pause(easy.raw, Int32(mask))
    }
}
