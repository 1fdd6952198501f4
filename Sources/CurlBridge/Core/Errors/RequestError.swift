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
    /// What went wrong.
    public let code: Code
    /// A human-readable explanation, specific to this failure.
    public let message: String
    /// The request's method, when known.
    public let method: HTTPRequest.Method?
    /// The request's URL as sent (or as written, when it could not be parsed).
    public let url: String?
    /// libcurl's result code (`CURLcode`), when the failure came from curl.
    public let curlCode: Int?
    /// The text of curl's error buffer for this transfer, when curl wrote one.
    public let curlMessage: String?
    /// The response that was received, for errors raised after a response arrived.
    public let response: Response?
    /// The error that caused this one, when there is one.
    public let underlying: (any Error & Sendable)?
    /// How to resume a download that failed or was cancelled after writing some bytes, when the
    /// server named a validator (see ``ResumeData``); `nil` otherwise.
    public let resumeData: ResumeData?
    /// Every attempt made before the request failed, first to last; empty when it failed before
    /// any attempt started (a building problem, a refused thread).
    public internal(set) var attempts: [AttemptRecord] = []
    /// Whether any byte of a response had arrived when the attempt failed (a retry of a failure
    /// after that is not safe to assume harmless).
    var receivedResponseBytes = false

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
        self.code = code
        self.message = message
        self.method = method
        self.url = url
        self.curlCode = curlCode
        self.curlMessage = curlMessage
        self.response = response
        self.underlying = underlying
        self.resumeData = resumeData
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
        RequestError(
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
        var copy = self
        copy.attempts = original.attempts
        copy.receivedResponseBytes = original.receivedResponseBytes
        return copy
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
