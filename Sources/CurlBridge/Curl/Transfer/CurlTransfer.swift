import Foundation
internal import CCurl

/// One request's transfer in curl: its easy handle, configured from the prepared request, and the
/// C callbacks that hand what curl does to the transfer's ``TransferReceiver``.
///
/// Mechanism: what to do with a head, a body or a failure is the receiver's; what may be sent
/// twice is ``ResendRule``'s; when a `401` is final is ``ChallengeHold``'s; idleness is
/// ``IdleClock``'s and progress pacing ``ProgressThrottle``'s.
///
/// Not `Sendable`: created, driven and finished on its transport's loop. curl's callbacks find it
/// through an unretained pointer; the engine's table keeps it alive while curl holds that pointer.
final class CurlTransfer {
    /// The number of the request it belongs to.
    let id: UInt64
    /// The request being sent.
    let request: PreparedRequest
    /// Where it reports.
    let receiver: any TransferReceiver
    /// The curl handle.
    let easy: CurlEasyHandle
    /// Whether the request's host is pinned by certificate (telling a pinning mismatch from an
    /// untrusted certificate when verification fails).
    private let pinsCertificates: Bool
    /// Where curl's read callback takes the request body from, unless curl sends it itself.
    private var bodyReader: RequestBodyReader?
    /// Why the transfer must fail even if curl says it succeeded (a refused head or body, a
    /// body source's failure, a re-send refused).
    private var failure: RequestError?
    /// Whether the final head has been handed to the receiver.
    private var headDelivered = false

    // The five values below change on every header line, body piece or progress report. Their
    // accesses skip run-time exclusivity checks: each is changed only by its own mutating
    // methods, which are pure (they call nothing back), on the loop's thread.

    /// Checks every header line curl receives.
    @exclusivity(unchecked) private var headGuard: ResponseHeadGuard
    /// The latest response head's field lines, from the lines the guard accepted.
    @exclusivity(unchecked) private var responseHead = ResponseHeadRecorder()
    /// A `401` waiting while curl may answer its challenge.
    @exclusivity(unchecked) private var challenge = ChallengeHold()
    /// The idle timeout, if the request has one.
    @exclusivity(unchecked) var idleClock: IdleClock?
    /// When progress is worth reporting.
    @exclusivity(unchecked) private var progressThrottle = ProgressThrottle()
    /// Whether curl has started sending the request once.
    private var hasStartedSending = false
    /// The guard's status-line count when curl last started sending.
    private var statusLinesAtLastSend = 0
    /// How many times curl sent the request again after no answer.
    private var unansweredResends = 0
    /// Whether the easy handle may serve another transfer once this one ends: not after a request
    /// with its own `Host` header, whose host curl keeps on the handle for matching cookies across
    /// `curl_easy_reset` (CVE-2026-6276, unpatched in libcurl 7.88.1-10+deb12u15).
    let leavesHandleReusable: Bool
    /// The TLS connection of a body that ends at the close, asked at the end whether the server
    /// closed it with `close_notify`.
    private var closeNotifyWatch: TLSCloseNotifyWatch?
    /// Whether receiving is paused, by the body sink or the caller.
    private var isReceivePaused = false
    /// Whether sending is paused, waiting for a body stream's producer.
    private var isSendPaused = false
    /// Whether this transfer started its body's stream, and so may close it: a request sent twice
    /// shares one stream, which belongs to the send that started it.
    private var ownsBodyStream = false

    /// Whether the transfer waits for its consumer or its body's producer: then it is never idle.
    var isPaused: Bool { isReceivePaused || isSendPaused }

    /// Nanoseconds from the start to curl's pre-transfer moment (the connection phase over);
    /// `nil` while waiting for a connection or connecting.
    var connectedAfter: UInt64? {
        let microseconds = easy.info(offset: CURLINFO_PRETRANSFER_TIME_T)
        return microseconds > 0 ? UInt64(microseconds) &* 1000 : nil
    }

    /// Creates a transfer on `easy` (fresh, or reset by its pool), configured and ready to join a
    /// multi handle.
    ///
    /// - Throws: ``RequestError`` if curl refuses an option.
    init(
        id: UInt64, request: PreparedRequest, receiver: any TransferReceiver, options: CurlEasyOptions, easy: CurlEasyHandle
    ) throws(RequestError) {
        self.id = id
        self.request = request
        self.receiver = receiver
        self.easy = easy
        self.headGuard = ResponseHeadGuard(limit: request.maximumHeaderSize)
        idleClock = request.idleTimeoutNanoseconds.map { IdleClock(limit: $0, now: MonotonicClock.now) }
        leavesHandleReusable = !request.headerLines.contains { $0.isCurlHeaderLine(named: "host") }
        self.bodyReader = try RequestBodyReader(request.body)
        pinsCertificates = try options.apply(to: easy, url: request.url, pinning: request.pinning).pinsCertificates
        try options.applyCookiesAndProxy(to: easy, request: request)
        try configureRequest()
        try installCallbacks()
        if request.trace != nil || request.reportsSentCookies {
            try easy.enableDebug(CurlDebugRecorder(
                traceLog: request.trace.map { CurlTraceLog($0, requestID: id) }, recordsCookies: request.reportsSentCookies))
        }
    }

    deinit {
        closeBody()
    }

    /// Closes the body file, or stops the body stream's producer; called when the transfer ends.
    func closeBody() {
        if case .stream? = bodyReader, !ownsBodyStream {
            bodyReader = nil
            return
        }
        bodyReader?.close()
        bodyReader = nil
    }

    /// Whether the request's body is a stream, whose producer ``startBodyStream(wake:)`` starts.
    var sendsBodyStream: Bool {
        if case .stream? = bodyReader { true } else { false }
    }

    /// Starts the producer of a streamed request body, if the body is one; `wake` resumes sending
    /// when the stream has bytes again.
    ///
    /// - Throws: ``RequestError/Code/bodyNotRewindable`` when the stream was already sent.
    func startBodyStream(wake: @escaping @Sendable () -> Void) throws(RequestError) {
        guard case .stream(let stream)? = bodyReader else { return }
        ownsBodyStream = stream.start(wake: wake)
        guard ownsBodyStream else {
            throw RequestError(
                .bodyNotRewindable, "the request's body stream was already sent; a stream can be sent once only",
                method: request.method, url: request.url)
        }
    }

    /// The pointer curl hands back to our callbacks.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The transfer behind a callback's context pointer.
    static func from(_ context: UnsafeMutableRawPointer) -> CurlTransfer {
        Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    }

    /// URL, method, headers, body and timeouts.
    private func configureRequest() throws(RequestError) {
        try easy.set(CURLOPT_URL, request.url)
        try easy.set(CURLOPT_PRIVATE, pointer: context)
        if let connect = request.connectTimeoutMilliseconds {
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, connect)
        }
        if let total = request.totalTimeoutMilliseconds {
            try easy.set(CURLOPT_TIMEOUT_MS, total)
        }
        let method = request.method.rawValue
        if let bodyReader {
            try easy.set(CURLOPT_POST, 1)
            // -1: unknown, sent chunked over HTTP/1.1.
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: bodyReader.length ?? -1)
            if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
        } else if case .multipart(let form) = request.body {
            try easy.setMultipartBody(form)
            if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "HEAD" {
            try easy.set(CURLOPT_NOBODY, 1)
        } else if method == "POST" {
            try easy.set(CURLOPT_POST, 1)
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0)
        } else if method != "GET" {
            try easy.set(CURLOPT_CUSTOMREQUEST, method)
        }
        try easy.setHeaderLines(request.headerLines)
        try request.authentication?.apply(to: easy)
    }

    /// The C callbacks; each finds this transfer through ``context``.
    private func installCallbacks() throws(RequestError) {
        try easy.check(ccurl_easy_setopt_write_function(easy.raw, CURLOPT_WRITEFUNCTION) { bytes, size, count, context in
            guard let context else { return 0 }
            return CurlTransfer.from(context).receiveBody(UnsafeRawBufferPointer(start: bytes, count: size * count))
        }, CURLOPT_WRITEFUNCTION)
        try easy.set(CURLOPT_WRITEDATA, pointer: context)
        try easy.check(ccurl_easy_setopt_write_function(easy.raw, CURLOPT_HEADERFUNCTION) { bytes, size, count, context in
            guard let context else { return 0 }
            return CurlTransfer.from(context).receiveHeaderLine(UnsafeRawBufferPointer(start: bytes, count: size * count))
        }, CURLOPT_HEADERFUNCTION)
        try easy.set(CURLOPT_HEADERDATA, pointer: context)
        // A proxy's answer to CONNECT stays out of the header callback: the guard sees the origin's heads only.
        try easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try easy.check(ccurl_easy_setopt_prereq_function(easy.raw) { context, _, _, _, _ in
            guard let context else { return ccurl_prereqfunc_abort }
            return CurlTransfer.from(context).mayStartSending() ? ccurl_prereqfunc_ok : ccurl_prereqfunc_abort
        }, CURLOPT_PREREQFUNCTION)
        try easy.set(CURLOPT_PREREQDATA, pointer: context)
        if bodyReader != nil {
            try easy.check(ccurl_easy_setopt_read_function(easy.raw) { bytes, size, count, context in
                guard let context, let bytes else { return ccurl_readfunc_abort }
                return CurlTransfer.from(context).sendBody(into: UnsafeMutableRawBufferPointer(start: bytes, count: size * count))
            }, CURLOPT_READFUNCTION)
            try easy.set(CURLOPT_READDATA, pointer: context)
            try easy.check(ccurl_easy_setopt_seek_function(easy.raw) { context, offset, origin in
                guard let context, origin == SEEK_SET else { return ccurl_seekfunc_fail }
                return CurlTransfer.from(context).rewindBody(to: Int64(offset))
            }, CURLOPT_SEEKFUNCTION)
            try easy.set(CURLOPT_SEEKDATA, pointer: context)
        }
        // curl's own MIME reader sends multipart bodies, so no callback of ours sees those bytes:
        // the progress counters are then what tells the idle timeout that the upload moves.
        if receiver.wantsProgress || request.isMultipart {
            try easy.set(CURLOPT_NOPROGRESS, 0)
            try easy.check(ccurl_easy_setopt_xferinfo_function(easy.raw) { context, downloadTotal, downloaded, uploadTotal, uploaded in
                guard let context else { return 0 }
                CurlTransfer.from(context).reportProgress(
                    received: downloaded, expectedToReceive: downloadTotal, sent: uploaded, expectedToSend: uploadTotal)
                return 0
            }, CURLOPT_XFERINFOFUNCTION)
            try easy.set(CURLOPT_XFERINFODATA, pointer: context)
        }
    }

    // MARK: Callbacks (on the loop, inside curl_multi_perform)

    /// A byte moved: restarts the idle clock.
    private func noteActivity() {
        idleClock?.noteActivity(at: MonotonicClock.now)
    }

    /// Hands body bytes to the receiver, after a held `401` head that turned out final.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        noteActivity()
        if let head = challenge.release(), !deliver(head) { return 0 }
        switch receiver.transferReceivedBody(bytes) {
        case .accept:
            return bytes.count
        case .pause:
            isReceivePaused = true
            return ccurl_writefunc_pause
        case .fail(let error):
            failure = error.attributed(to: request.method, url: request.url)
            return 0  // curl stops the transfer with CURLE_WRITE_ERROR
        }
    }

    /// Checks the line (``ResponseHeadGuard``); at the blank line ending a final (non-1xx) head,
    /// lets the receiver refuse the declared body, then delivers the head — unless it is a `401`
    /// curl may still answer (``ChallengeHold``). Returning less than the line stops curl.
    private func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Int {
        noteActivity()
        switch headGuard.inspect(line) {
        case .accept:
            break
        case .finalHeadEnded(let status, let declaredLength):
            if let refusal = receiver.transferWillReceiveBody(declaredLength: declaredLength, status: status) {
                failure = refusal
                return 0  // curl stops the transfer with CURLE_WRITE_ERROR
            }
            if headGuard.bodyEndsAtClose, request.method != .head, readHTTPVersion() != .http2 {
                closeNotifyWatch = TLSCloseNotifyWatch(easy)
            }
        case .reject(let code, let reason):
            failure = RequestError(code, reason, method: request.method, url: request.url)
            return 0
        }
        responseHead.take(line)
        guard !headDelivered, receiver.wantsHeads else { return line.count }
        if line.count > 2 {
            if ResponseHeadGuard.startsWithStatusLinePrefix(line[...]) { challenge.statusLineArrived() }
            return line.count
        }
        let code = easy.info(long: CURLINFO_RESPONSE_CODE)
        guard code >= 200 else { return line.count }
        let head = ResponseHead(
            status: .init(code: code), headerFields: responseHead.headerBlock().fields, httpVersion: readHTTPVersion(),
            url: easy.info(string: CURLINFO_EFFECTIVE_URL, reusing: request.url))
        if ChallengeHold.holds(status: code, curlAnswersChallenges: request.authentication != nil) {
            challenge.hold(head)
            return line.count
        }
        return deliver(head) ? line.count : 0  // 0: curl stops the transfer with CURLE_WRITE_ERROR
    }

    /// Hands the final head to the receiver; `false` (and the failure recorded) when refused.
    private func deliver(_ head: ResponseHead) -> Bool {
        headDelivered = true
        guard let refusal = receiver.transferReceivedHead(head) else { return true }
        failure = refusal.attributed(to: request.method, url: request.url)
        return false
    }

    /// Decides, with ``ResendRule``, whether curl may send the request again: curl sends a
    /// request once more, on a fresh connection, when a reused connection closed before any byte
    /// of an answer. A send after an answer (curl answering an authentication challenge) is not
    /// such a repeat.
    private func mayStartSending() -> Bool {
        defer { statusLinesAtLastSend = headGuard.statusLines }
        guard hasStartedSending else {
            hasStartedSending = true
            return true
        }
        guard headGuard.statusLines == statusLinesAtLastSend else { return true }
        let occasion = ResendRule.Occasion.unansweredOnReusedConnection(previousResends: unansweredResends)
        unansweredResends += 1
        guard let denial = ResendRule.denial(occasion, ResendRule.Facts(request)) else { return true }
        failure = Self.refusedResend(denial, of: request)
        return false
    }

    /// The failure of a transfer whose connection closed unanswered and may not be sent again.
    private static func refusedResend(_ denial: ResendRule.Denial, of request: PreparedRequest) -> RequestError {
        switch denial {
        case .bodyNotRewindable:
            RequestError(
                .bodyNotRewindable, "the connection closed before any answer, and the request's body stream cannot be sent again",
                method: request.method, url: request.url)
        case .alreadyResent:
            RequestError(.connectionLost, "the connection closed before any answer, twice", method: request.method, url: request.url)
        case .notIdempotent, .responseStarted:
            RequestError(
                .connectionLost, "the connection closed before any answer; a \(request.method.rawValue) request is not sent twice",
                method: request.method, url: request.url)
        }
    }

    /// Copies the next slice of the request body into curl's buffer, or pauses sending until the
    /// body's stream has bytes.
    private func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard var reader = bodyReader else { return 0 }
        noteActivity()
        let result = reader.read(into: buffer)
        bodyReader = reader
        switch result {
        case .bytes(let count):
            return count
        case .pause:
            isSendPaused = true
            return ccurl_readfunc_pause
        case .fail(let error):
            failure = error.attributed(to: request.method, url: request.url)
            return ccurl_readfunc_abort
        }
    }

    /// Moves the upload position when curl must send the body again (a retried connection).
    private func rewindBody(to offset: Int64) -> Int32 {
        guard var reader = bodyReader else { return ccurl_seekfunc_fail }
        let rewound = reader.rewind(to: offset)
        bodyReader = reader
        if rewound { return ccurl_seekfunc_ok }
        if case .stream = reader { return ccurl_seekfunc_cantseek }  // curl then fails with CURLE_SEND_FAIL_REWIND
        return ccurl_seekfunc_fail
    }

    /// Notes movement for the idle timeout and forwards curl's progress counters when due.
    private func reportProgress(received: curl_off_t, expectedToReceive: curl_off_t, sent: curl_off_t, expectedToSend: curl_off_t) {
        let now = MonotonicClock.now
        let (moved, due) = progressThrottle.note(sent: Int64(sent), received: Int64(received), at: now)
        if moved { idleClock?.noteActivity(at: now) }
        guard due, receiver.wantsProgress else { return }
        receiver.transferProgressed(TransferProgress(
            curlReceived: Int64(received), expectedToReceive: Int64(expectedToReceive),
            sent: Int64(sent), expectedToSend: Int64(expectedToSend)))
    }

    // MARK: Control (on the loop, between curl calls)

    /// Pauses receiving.
    func pauseReceiving() {
        isReceivePaused = true
        applyPauseState()
    }

    /// Resumes receiving; curl may deliver held-back bytes before this returns.
    func resumeReceiving() {
        isReceivePaused = false
        noteActivity()
        applyPauseState()
    }

    /// Resumes sending after the body's stream had no bytes ready.
    func resumeSending() {
        guard isSendPaused else { return }
        isSendPaused = false
        noteActivity()
        applyPauseState()
    }

    /// Tells curl which directions are paused now.
    private func applyPauseState() {
        let mask = (isReceivePaused ? ccurl_pause_recv : 0) | (isSendPaused ? ccurl_pause_send : 0)
        curl_easy_pause(easy.raw, Int32(mask))
    }

    // MARK: The end

    /// How the transfer ended, curl having finished it with `result`.
    func end(with result: CURLcode) -> TransferEnd {
        if result == CURLE_OK, let head = challenge.release() { _ = deliver(head) }  // a final 401 without a body
        return TransferEnd(
            result: outcome(of: result), finalProgress: finalProgress(),
            failedOnClosingSession: failure == nil && failedOnClosingSession(result),
            sentCookieLines: easy.debugRecorder?.sentCookieLines)
    }

    /// The transfer's end when it is ended from outside with `error` (an idle timeout, a failure
    /// of the multi handle).
    func end(failingWith error: RequestError) -> TransferEnd {
        TransferEnd(result: .failure(error.attributed(to: request.method, url: request.url)), finalProgress: finalProgress())
    }

    /// Before the transfer is taken out of curl unfinished (cancelled, timed out, shut down): its
    /// connection is closed unless another transfer still uses it. curl closes an HTTP/1.1
    /// connection in that case anyway; for HTTP/2, libcurl 7.88 queues the stream's `RST_STREAM`
    /// and writes it only with the connection's next write, so a connection left idle would keep
    /// the server sending for a stream nobody reads. Closing it tells the server at once; on a
    /// connection other transfers still use, their next write carries the reset.
    func abandonConnectionIfUnused() {
        try? easy.set(CURLOPT_FORBID_REUSE, 1)
    }

    /// The final byte counts, when the receiver wants progress.
    func finalProgress() -> TransferProgress? {
        guard receiver.wantsProgress else { return nil }
        var progress = TransferProgress(
            curlReceived: easy.info(offset: CURLINFO_SIZE_DOWNLOAD_T),
            expectedToReceive: easy.info(offset: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T),
            sent: easy.info(offset: CURLINFO_SIZE_UPLOAD_T),
            expectedToSend: easy.info(offset: CURLINFO_CONTENT_LENGTH_UPLOAD_T))
        progress.expectedBytesToSend = progress.expectedBytesToSend ?? bodyReader?.length
        return progress
    }

    /// Whether a timeout now would be the connect timeout: the connection phase (TCP and TLS) has
    /// not finished and the connect limit is the tighter one (while connecting, curl applies the
    /// smaller of connect and total).
    private var connectLimitApplied: Bool {
        guard connectedAfter == nil, let connect = request.connectTimeoutMilliseconds else { return false }
        return request.totalTimeoutMilliseconds.map { connect <= $0 } ?? true
    }

    /// How far the response had come.
    private var responsePhase: CurlResponsePhase {
        if headGuard.hasFinalHead { return .readingBody }
        return connectedAfter != nil ? .readingHead : .connecting
    }

    /// The outcome of a transfer curl finished with `result`; a response's body is its sink's.
    private func outcome(of result: CURLcode) -> Result<Response, RequestError> {
        if let failure { return .failure(failure) }
        if result == CURLE_OK, let closeNotifyWatch, !closeNotifyWatch.receivedCloseNotify {
            return .failure(RequestError(
                .responseTruncated,
                "the TLS connection closed without close_notify before the end of a body that ends at the close: it may be cut",
                method: request.method, url: request.url))
        }
        guard result == CURLE_OK else {
            let tls = CurlTLSContext(verifyResult: easy.info(long: CURLINFO_SSL_VERIFYRESULT), pinsCertificates: pinsCertificates)
            var error = RequestError(
                curlResult: result, errorBuffer: easy.errorText, connectLimitApplied: connectLimitApplied,
                proxyTunnelStatus: easy.info(long: CURLINFO_HTTP_CONNECTCODE), tls: tls,
                phase: responsePhase)
                .attributed(to: request.method, url: request.url)
            // Whether the server had begun to answer: a retry policy re-sends only what it had not.
            error.receivedResponseBytes = easy.info(long: CURLINFO_HEADER_SIZE) > 0
            return .failure(error)
        }
        return .success(Response(
            status: .init(code: easy.info(long: CURLINFO_RESPONSE_CODE)),
            headerBlock: responseHead.headerBlock(),
            body: Data(),
            url: easy.info(string: CURLINFO_EFFECTIVE_URL, reusing: request.url),
            httpVersion: readHTTPVersion(),
            metrics: readMetrics(),
            requestMethod: request.method,
            requestAccept: request.accept))
    }
}
