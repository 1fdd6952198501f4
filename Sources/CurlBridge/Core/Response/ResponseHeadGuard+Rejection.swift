extension ResponseHeadGuard {
    /// Why the guard refused a line: plain numbers, no text, so that a ``Verdict`` is copied and
    /// dropped without reference counting on every header line. The message is written only for
    /// a refusal (``reason``).
    enum Rejection: Equatable {
        /// The header section grew past the cap of `limit` bytes.
        case headersTooLarge(limit: Int)
        /// A status line that is not `HTTP/<version> <3 digits>`.
        case malformedStatusLine
        /// A status code outside 100...599.
        case statusOutOfRange(Int)
        /// A field name that is not a token.
        case nameNotToken
        /// A field line without a colon.
        case missingColon
        /// A control character (or DEL) in a field value.
        case controlCharacter
        /// A folded line continuing `Content-Length` or `Transfer-Encoding`.
        case foldedFraming
        /// `Content-Length` together with `Transfer-Encoding`.
        case lengthWithTransferEncoding
        /// A `Content-Length` that is not a number, or overflows.
        case invalidContentLength
        /// Two `Content-Length` values that differ.
        case conflictingContentLengths(Int64, Int64)

        /// The error's code.
        var code: RequestError.Code {
            if case .headersTooLarge = self { return .headersTooLarge }
            return .protocolError
        }

        /// The error's message.
        var reason: String {
            switch self {
            case .headersTooLarge(let limit): "the response's headers exceed the cap of \(limit) bytes"
            case .malformedStatusLine: "the response's status line is malformed"
            case .statusOutOfRange(let status): "the response's status code \(status) is outside 100...599"
            case .nameNotToken: "a response header name is not a valid token"
            case .missingColon: "a response header line has no colon"
            case .controlCharacter: "a response header value contains a control character (CR, LF, NUL or another)"
            case .foldedFraming: "a folded line continues the response's Content-Length or Transfer-Encoding"
            case .lengthWithTransferEncoding: "the response declares both Content-Length and Transfer-Encoding"
            case .invalidContentLength: "the response's Content-Length is not a number or overflows"
            case .conflictingContentLengths(let first, let second):
                "the response declares conflicting Content-Length values \(first) and \(second)"
            }
        }

        /// The failure it makes of the transfer.
        var error: RequestError { RequestError(code, reason) }
    }
}
