#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// The one error every CurlBridge client reports, whichever style the call was made in.
///
/// A `RequestError` carries a ``code`` that says what went wrong, plus the context needed to act
/// on it: the request's method and URL, libcurl's own result code and error-buffer text when curl
/// was involved, the ``Response`` when one arrived (for validation failures), and an underlying
/// error (for example the `EncodingError` of a body that could not be encoded).
///
/// Match on ``code`` with `==` or `switch`; new codes can be added without breaking callers,
/// because ``Code`` is a struct with static members rather than an enum.
public struct RequestError: Error, Sendable, CustomStringConvertible {
    /// The fields, in one box shared by copies: an error travels inside every
    /// `Result<Response, RequestError>` of a request's life — through its state machine, its
    /// events and the caller's completion — and a copy, a move or a destruction of a one-word
    /// error is a retain or a release, where the fields inline (about 230 bytes) made every such
    /// `Result` operation a large outlined one. The box never changes: setting ``attempts`` or
    /// the response-byte flag, which happens once per failed attempt, gives the error a new box.
    private var storage: Storage

    /// What an error holds; see the public properties of the same names.
    private final class Storage: Sendable {
        let code: Code
        let message: String
        let method: HTTPRequest.Method?
        let url: String?
        let curlCode: Int?
        let curlMessage: String?
        let response: Response?
        let underlying: (any Error & Sendable)?
        let resumeData: ResumeData?
        let attempts: [AttemptRecord]
        let receivedResponseBytes: Bool

        init(
            code: Code, message: String, method: HTTPRequest.Method?, url: String?, curlCode: Int?,
            curlMessage: String?, response: Response?, underlying: (any Error & Sendable)?,
            resumeData: ResumeData?, attempts: [AttemptRecord], receivedResponseBytes: Bool
        ) {
            self.code = code
            self.message = message
            self.method = method
            self.url = url
            self.curlCode = curlCode
            self.curlMessage = curlMessage
            self.response = response
            self.underlying = underlying
            self.resumeData = resumeData
            self.attempts = attempts
            self.receivedResponseBytes = receivedResponseBytes
        }

        /// A copy of these fields with other attempts and response-byte flag.
        func with(attempts: [AttemptRecord], receivedResponseBytes: Bool) -> Storage {
            Storage(
                code: code, message: message, method: method, url: url, curlCode: curlCode,
                curlMessage: curlMessage, response: response, underlying: underlying, resumeData: resumeData,
                attempts: attempts, receivedResponseBytes: receivedResponseBytes)
        }
    }

    /// What went wrong.
    public var code: Code { storage.code }
    /// A human-readable explanation, specific to this failure.
    public var message: String { storage.message }
    /// The request's method, when known.
    public var method: HTTPRequest.Method? { storage.method }
    /// The request's URL as sent (or as written, when it could not be parsed).
    public var url: String? { storage.url }
    /// libcurl's result code (`CURLcode`), when the failure came from curl.
    public var curlCode: Int? { storage.curlCode }
    /// The text of curl's error buffer for this transfer, when curl wrote one.
    public var curlMessage: String? { storage.curlMessage }
    /// The response that was received, for errors raised after a response arrived.
    public var response: Response? { storage.response }
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)? { storage.underlying }
    /// How to resume a download that failed or was cancelled after writing some bytes, when the
    /// server named a validator (see ``ResumeData``); `nil` otherwise.
    public var resumeData: ResumeData? { storage.resumeData }
    /// Every attempt made before the request failed, first to last; empty when it failed before
    /// any attempt started (a building problem, a refused thread).
    public internal(set) var attempts: [AttemptRecord] {
        get { storage.attempts }
        set { storage = storage.with(attempts: newValue, receivedResponseBytes: storage.receivedResponseBytes) }
    }
    /// Whether any byte of a response had arrived when the attempt failed (a retry of a failure
    /// after that is not safe to assume harmless).
    var receivedResponseBytes: Bool {
        get { storage.receivedResponseBytes }
        set { storage = storage.with(attempts: storage.attempts, receivedResponseBytes: newValue) }
    }

    /// Creates an error. Clients create these; callers normally only read them.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: A specific, human-readable explanation.
    ///   - method: The request's method, if known.
    ///   - url: The request's URL, if known.
    ///   - curlCode: libcurl's `CURLcode`, if curl reported the failure.
    ///   - curlMessage: curl's error-buffer text, if any.
    ///   - response: The response received before the failure, if any.
    ///   - underlying: The causing error, if any.
    ///   - resumeData: How to resume the failed download, if it can be.
    public init(
        _ code: Code,
        _ message: String,
        method: HTTPRequest.Method? = nil,
        url: String? = nil,
        curlCode: Int? = nil,
        curlMessage: String? = nil,
        response: Response? = nil,
        underlying: (any Error & Sendable)? = nil,
        resumeData: ResumeData? = nil
    ) {
        storage = Storage(
            code: code, message: message, method: method, url: url, curlCode: curlCode, curlMessage: curlMessage,
            response: response, underlying: underlying, resumeData: resumeData, attempts: [],
            receivedResponseBytes: false)
    }

    /// `"<code>: <message> (<METHOD> <url>) [curl <n>: <text>]"`.
    public var description: String {
        var text = "\(code): \(message)"
        if let method, let url {
            text += " (\(method.rawValue) \(url))"
        } else if let url {
            text += " (\(url))"
        }
        if let curlCode {
            text += " [curl \(curlCode)"
            if let curlMessage, !curlMessage.isEmpty, curlMessage != message { text += ": \(curlMessage)" }
            text += "]"
        }
        return text
    }

    /// A copy with the request's method and URL filled in where they were missing.
    func attributed(to method: HTTPRequest.Method?, url: String?) -> RequestError {
        if self.method != nil, self.url != nil { return self }
        return RequestError(
            code, message, method: self.method ?? method, url: self.url ?? url, curlCode: curlCode,
            curlMessage: curlMessage, response: response, underlying: underlying, resumeData: resumeData
        ).keepingInternals(of: self)
    }

    /// The error of `request`, sent from a task that was already cancelled.
    static func cancelledBeforeStart(_ request: Request) -> RequestError {
        RequestError(.cancelled, "the task was cancelled before the request started", method: request.method, url: request.url)
    }

    /// A copy carrying `response`, the response the failure is about.
    func with(response: Response) -> RequestError {
        RequestError(
            code, message, method: method, url: url, curlCode: curlCode, curlMessage: curlMessage,
            response: response, underlying: underlying, resumeData: resumeData
        ).keepingInternals(of: self)
    }

    /// A copy carrying `resumeData`.
    func resumable(with resumeData: ResumeData?) -> RequestError {
        RequestError(
            code, message, method: method, url: url, curlCode: curlCode, curlMessage: curlMessage,
            response: response, underlying: underlying, resumeData: resumeData
        ).keepingInternals(of: self)
    }

    /// This error with the attempts and response-byte flag of `original`.
    private func keepingInternals(of original: RequestError) -> RequestError {
        guard !original.attempts.isEmpty || original.receivedResponseBytes else { return self }
        var copy = self
        copy.storage = storage.with(attempts: original.attempts, receivedResponseBytes: original.receivedResponseBytes)
        return copy
    }
}

extension RequestError: CustomReflectable {
    /// The fields, as `dump` and debuggers show an error (not the box that stores them).
    public var customMirror: Mirror {
        Mirror(self, children: [
            "code": code,
            "message": message,
            "method": method as Any,
            "url": url as Any,
            "curlCode": curlCode as Any,
            "curlMessage": curlMessage as Any,
            "response": response as Any,
            "underlying": underlying as Any,
            "resumeData": resumeData as Any,
            "attempts": attempts,
            "receivedResponseBytes": receivedResponseBytes,
        ], displayStyle: .struct)
    }
}

extension RequestError: Equatable {
    /// Two errors are equal when every field is; underlying errors compare by their description,
    /// and ``attempts`` are left out (their durations differ from run to run).
    public static func == (lhs: RequestError, rhs: RequestError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.method == rhs.method
            && lhs.url == rhs.url && lhs.curlCode == rhs.curlCode
            && lhs.curlMessage == rhs.curlMessage && lhs.response == rhs.response && lhs.resumeData == rhs.resumeData
            && lhs.underlying.map { String(describing: $0) } == rhs.underlying.map { String(describing: $0) }
    }
}
