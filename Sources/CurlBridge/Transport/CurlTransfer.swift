import Foundation
internal import CCurl

/// One request in flight: its easy handle, what it has received so far, and its events.
///
/// Not `Sendable`: created, driven and finished on its transport's queue. curl's callbacks find it
/// through an unretained pointer; the loop's table keeps it alive while curl holds that pointer.
final class CurlTransfer {
    /// The transfer's number within its loop.
    let id: UInt64
    /// The request being sent.
    let request: PreparedRequest
    /// The owner's callbacks.
    let events: TransferEvents
    /// The curl handle.
    let easy: CurlEasyHandle
    /// Whether the request's host is pinned by certificate (telling a pinning mismatch from an
    /// untrusted certificate when verification fails).
    private let pinsCertificates: Bool
    /// The body collected so far, when no ``TransferEvents/onBodyChunk`` consumer takes it.
    private var body = Data()
    /// Where curl's read callback takes the request body from, unless curl sends it itself.
    private var bodyReader: RequestBodyReader?
    /// Why the transfer must fail even if curl says it succeeded (body too large, a consumer's or
    /// a body source's failure).
    private var failure: RequestError?
    /// Whether the transfer must fail whatever curl says.
    var hasFailure: Bool { failure != nil }
    /// Whether the final response head has been delivered.
    private var headDelivered = false
    /// Checks every header line curl receives.
    private var headGuard: ResponseHeadGuard
    /// The latest response head's fields, from the lines the guard accepted.
    private var responseFields = ResponseFieldCollector()
    /// When a byte last moved (`MonotonicClock` nanoseconds), for the idle timeout.
    private(set) var lastActivity: UInt64
    /// Whether the easy handle may serve another transfer once this one ends: not after a request
    /// with its own `Host` header, whose host curl keeps on the handle for matching cookies across
    /// `curl_easy_reset` (CVE-2026-6276, unpatched in libcurl 7.88.1-10+deb12u15).
    let leavesHandleReusable: Bool
    /// Whether receiving is paused, by the body consumer or the handle.
    private var isReceivePaused = false
    /// Whether sending is paused, waiting for a body stream's producer.
    private var isSendPaused = false
    /// The progress counters last seen, to tell movement from mere progress calls.
    private var lastReportedSent: curl_off_t = 0
    private var lastReportedReceived: curl_off_t = 0
    /// When progress was last reported (`MonotonicClock` nanoseconds), for throttling.
    private var lastProgressReport: UInt64 = 0

    /// Whether the transfer waits for its consumer or its body's producer: then it is never idle.
    var isPaused: Bool { isReceivePaused || isSendPaused }

    /// Whether the connection phase is over (curl records the pre-transfer moment as it happens).
    /// Until then the transfer waits for a connection or is connecting: the connect timeout, not
    /// the idle timeout, applies.
    var hasConnected: Bool { easy.info(offset: CURLINFO_PRETRANSFER_TIME_T) > 0 }

    /// When the transfer began (`MonotonicClock` nanoseconds); curl's own timings count from about then.
    private let startedAt: UInt64

    /// When the idle clock last started: the last byte moved, or the connection completing
    /// (curl's pre-transfer moment), whichever is later.
    var idleSince: UInt64 {
        let connectedAfter = UInt64(max(0, easy.info(offset: CURLINFO_PRETRANSFER_TIME_T))) &* 1000
        return max(lastActivity, startedAt &+ connectedAfter)
    }

    /// Whether an idle check found the transfer still waiting for a connection (the loop starts
    /// its idle clock at the first check that finds it connected).
    var waitedForConnection = false

    /// Restarts the idle clock.
    func noteActivity() {
        lastActivity = MonotonicClock.now
    }

    /// Creates a transfer on `easy` (fresh, or reset by its pool), configured and ready to join a
    /// multi handle.
    ///
    /// - Throws: ``RequestError`` if curl refuses an option.
    init(
        id: UInt64, request: PreparedRequest, events: TransferEvents, options: CurlEasyOptions, easy: CurlEasyHandle
    ) throws(RequestError) {
        self.id = id
        self.request = request
        self.events = events
        self.easy = easy
        self.lastActivity = MonotonicClock.now
        self.startedAt = lastActivity
        self.headGuard = ResponseHeadGuard(limit: request.maximumHeaderSize)
        leavesHandleReusable = !request.headerLines.contains { $0.isCurlHeaderLine(named: "host") }
        self.bodyReader = try RequestBodyReader(request.body)
        pinsCertificates = try options.apply(to: easy, url: request.url).pinsCertificates
        try options.applyCookiesAndProxy(to: easy, request: request)
        try configureRequest()
        try installCallbacks()
        if let trace = request.trace { try easy.enableTrace(CurlTraceLog(trace, requestID: id)) }
    }

    deinit {
        closeBody()
    }

    /// Whether this transfer started its body's stream, and so may close it: a request sent twice
    /// shares one stream, which belongs to the send that started it.
    private var ownsBodyStream = false

    /// Closes the body file, or stops the body stream's producer; called when the transfer ends,
    /// before its outcome is reported.
    func closeBody() {
        if case .stream? = bodyReader, !ownsBodyStream {
            bodyReader = nil
            return
        }
        bodyReader?.close()
        bodyReader = nil
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
        if events.onProgress != nil || request.isMultipart {
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

    // MARK: Callbacks (on the queue, inside curl_multi_perform)

    /// Takes body bytes: hands them to the consumer, or collects them under the size cap.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = MonotonicClock.now
        guard deliverPendingHead() else { return 0 }
        if let consumer = events.onBodyChunk {
            switch consumer(bytes) {
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
        guard body.count + bytes.count <= request.maximumBodySize else {
            failure = RequestError(
                .bodyTooLarge, "the body exceeds the in-memory cap of \(request.maximumBodySize) bytes",
                method: request.method, url: request.url)
            return 0  // curl stops the transfer with CURLE_WRITE_ERROR
        }
        if body.isEmpty {
            let announced = easy.info(offset: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
            if announced > 0 { body.reserveCapacity(Int(min(announced, Int64(request.maximumBodySize)))) }
        }
        body.append(bytes.bindMemory(to: UInt8.self))
        return bytes.count
    }

    /// Checks the line (``ResponseHeadGuard``) and notes header activity; at the blank line ending
    /// a final (non-1xx) head, refuses a declared body larger than the in-memory cap, then delivers
    /// the head — except a `401` that curl may answer with credentials, which waits (see ``pendingHead``).
    private func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Int {
        lastActivity = MonotonicClock.now
        switch headGuard.inspect(line) {
        case .accept:
            break
        case .finalHeadEnded(let status, let declaredLength):
            if let refusal = refusal(ofDeclaredLength: declaredLength, status: status) {
                failure = refusal
                return 0  // curl stops the transfer with CURLE_WRITE_ERROR
            }
        case .reject(let code, let reason):
            failure = RequestError(code, reason, method: request.method, url: request.url)
            return 0
        }
        responseFields.take(line)
        guard !headDelivered, events.onResponseHead != nil else { return line.count }
        if line.count > 2 {
            // A status line after a held-back 401: curl answered the challenge, so that head was
            // not the final one (its body, if any, curl read and dropped).
            if pendingHead != nil, line.starts(with: "HTTP/".utf8) { pendingHead = nil }
            return line.count
        }
        let code = easy.info(long: CURLINFO_RESPONSE_CODE)
        guard code >= 200 else { return line.count }
        let head = ResponseHead(
            status: .init(code: code), headerFields: responseFields.fields, httpVersion: readHTTPVersion(),
            url: easy.info(string: CURLINFO_EFFECTIVE_URL))
        if code == 401, request.authentication != nil {
            pendingHead = head
            return line.count
        }
        return deliver(head) ? line.count : 0  // 0: curl stops the transfer with CURLE_WRITE_ERROR
    }

    /// Why a final head's declared body cannot be taken, if it cannot: a body collected in memory
    /// whose `Content-Length` is above the cap fails before a byte of it is read.
    private func refusal(ofDeclaredLength length: Int64?, status: Int) -> RequestError? {
        guard let length, length > request.maximumBodySize, events.onBodyChunk == nil,
              request.method != .head, status != 204, status != 304 else { return nil }
        return RequestError(
            .bodyTooLarge, "the response declares \(length) body bytes, above the in-memory cap of \(request.maximumBodySize) bytes",
            method: request.method, url: request.url)
    }

    /// Decides whether curl may send the request (again): curl sends a request once more, on a
    /// fresh connection, when a reused connection closed before any byte of an answer. The server
    /// may have processed it, so that happens once for an idempotent request and never for
    /// another — a `POST` is never sent twice. A send after an answer (curl answering an
    /// authentication challenge) is not such a repeat.
    private func mayStartSending() -> Bool {
        defer { statusLinesAtLastSend = headGuard.statusLines }
        guard hasStartedSending else {
            hasStartedSending = true
            return true
        }
        guard headGuard.statusLines == statusLinesAtLastSend else { return true }
        unansweredResends += 1
        if request.isIdempotent, unansweredResends <= 1 { return true }
        failure = RequestError(
            .connectionLost,
            request.isIdempotent
                ? "the connection closed before any answer, twice"
                : "the connection closed before any answer; a \(request.method.rawValue) request is not sent twice",
            method: request.method, url: request.url)
        return false
    }

    /// Whether curl has started sending the request once.
    private var hasStartedSending = false
    /// The guard's status-line count when curl last started sending.
    private var statusLinesAtLastSend = 0
    /// How many times curl sent the request again after no answer.
    private var unansweredResends = 0

    /// A `401` head held back because curl may answer its challenge and read another response
    /// in the same transfer; delivered when its body starts or the transfer ends (curl gave up),
    /// dropped when another status line comes.
    private var pendingHead: ResponseHead?

    /// Delivers the held-back head, if any; `false` when its consumer refused it.
    private func deliverPendingHead() -> Bool {
        guard let head = pendingHead else { return true }
        pendingHead = nil
        return deliver(head)
    }

    /// Hands the final head to its consumer; `false` (and the failure recorded) when refused.
    private func deliver(_ head: ResponseHead) -> Bool {
        headDelivered = true
        guard let refusal = events.onResponseHead?(head) else { return true }
        failure = refusal.attributed(to: request.method, url: request.url)
        return false
    }

    /// Copies the next slice of the request body into curl's buffer, or pauses sending until the
    /// body's stream has bytes.
    private func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard var reader = bodyReader else { return 0 }
        lastActivity = MonotonicClock.now
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

    /// Notes movement for the idle timeout and forwards curl's progress counters.
    private func reportProgress(received: curl_off_t, expectedToReceive: curl_off_t, sent: curl_off_t, expectedToSend: curl_off_t) {
        if sent != lastReportedSent || received != lastReportedReceived {
            lastReportedSent = sent
            lastReportedReceived = received
            lastActivity = MonotonicClock.now
        }
        guard let onProgress = events.onProgress else { return }
        let now = MonotonicClock.now
        guard now &- lastProgressReport >= Self.progressIntervalNanoseconds else { return }
        lastProgressReport = now
        onProgress(TransferProgress(
            curlReceived: Int64(received), expectedToReceive: Int64(expectedToReceive),
            sent: Int64(sent), expectedToSend: Int64(expectedToSend)))
    }

    private static let progressIntervalNanoseconds = UInt64(TransferProgress.minimumInterval.roundedUpMilliseconds) * 1_000_000

    /// Reports the final counts, just before the outcome.
    func reportFinalProgress() {
        guard let onProgress = events.onProgress else { return }
        var progress = TransferProgress(
            curlReceived: easy.info(offset: CURLINFO_SIZE_DOWNLOAD_T),
            expectedToReceive: easy.info(offset: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T),
            sent: easy.info(offset: CURLINFO_SIZE_UPLOAD_T),
            expectedToSend: easy.info(offset: CURLINFO_CONTENT_LENGTH_UPLOAD_T))
        progress.expectedBytesToSend = progress.expectedBytesToSend ?? bodyReader?.length
        onProgress(progress)
    }

    // MARK: Control (on the queue, between curl calls)

    /// Pauses receiving.
    func pauseReceiving() {
        isReceivePaused = true
        applyPauseState()
    }

    /// Resumes receiving; curl may deliver held-back bytes before this returns.
    func resumeReceiving() {
        isReceivePaused = false
        lastActivity = MonotonicClock.now
        applyPauseState()
    }

    /// Resumes sending after the body's stream had no bytes ready.
    func resumeSending() {
        guard isSendPaused else { return }
        isSendPaused = false
        lastActivity = MonotonicClock.now
        applyPauseState()
    }

    /// Tells curl which directions are paused now.
    private func applyPauseState() {
        let mask = (isReceivePaused ? ccurl_pause_recv : 0) | (isSendPaused ? ccurl_pause_send : 0)
        curl_easy_pause(easy.raw, Int32(mask))
    }

    /// Whether a timeout now would be the connect timeout: the connection phase (TCP and TLS) has
    /// not finished — curl records the pre-transfer moment as it happens — and the connect limit is
    /// the tighter one (while connecting, curl applies the smaller of connect and total).
    private var connectLimitApplied: Bool {
        guard easy.info(offset: CURLINFO_PRETRANSFER_TIME_T) == 0, let connect = request.connectTimeoutMilliseconds else {
            return false
        }
        return request.totalTimeoutMilliseconds.map { connect <= $0 } ?? true
    }

    /// How far the response had come.
    private var responsePhase: CurlResponsePhase {
        if headGuard.hasFinalHead { return .readingBody }
        return hasConnected ? .readingHead : .connecting
    }

    /// The outcome of a transfer curl finished with `result`.
    func outcome(of result: CURLcode) -> Result<Response, RequestError> {
        if result == CURLE_OK { _ = deliverPendingHead() }  // a final 401 without a body
        if let failure { return .failure(failure) }
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
            headerFields: responseFields.fields,
            body: body,
            url: easy.info(string: CURLINFO_EFFECTIVE_URL),
            httpVersion: readHTTPVersion(),
            metrics: readMetrics(),
            requestMethod: request.method,
            requestAccept: request.accept))
    }
}
