extension RequestError {
    /// What kind of failure a ``RequestError`` is.
    ///
    /// A struct with static members, so that adding a code in a later release breaks no caller's
    /// `switch` (write a `default:` case). ``description`` is short, stable and safe to use as a
    /// metric label.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case invalidURL, unsupportedScheme, invalidMethod, invalidHeader, encodingFailed
            case connectTimedOut, idleTimedOut, totalTimedOut
            case cancelled
            case hostNotFound, connectFailed, tlsFailure, pinningMismatch
            case connectionLost, responseTruncated, protocolError
            case tooManyRedirects, insecureRedirect
            case unacceptableStatus, unacceptableContentType, decodingFailed
            case bodyTooLarge, fileIO, destinationExists, integrityMismatch
            case bodySourceFailed, bodyNotRewindable
            case blockingRefused, transportShutDown, transportFailure
            case invalidCookie, proxyFailure, credentialsOverPlainHTTP
            case certificateUntrusted, certificateSelfSigned, certificateExpired, hostnameMismatch
            case tlsHandshakeFailed, clientCertificateRejected
            case adaptationFailed, retrierFailed, authenticationRefreshFailed, tooManyAuthenticationRefreshes
            case missingAuthenticationCredential
            case headersTooLarge
            case notCached
        }

        private let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        /// The stable short name of the code, e.g. `"idleTimedOut"`.
        public var description: String { kind.rawValue }

        /// The URL could not be parsed, or a relative URL had no base URL to resolve against.
        public static let invalidURL = Code(.invalidURL)
        /// The URL's scheme is not `http` or `https`.
        public static let unsupportedScheme = Code(.unsupportedScheme)
        /// The method is not a valid HTTP token (for example it contains CR, LF, NUL or a space).
        public static let invalidMethod = Code(.invalidMethod)
        /// A header name is not a valid token, or a value contains CR, LF or NUL.
        public static let invalidHeader = Code(.invalidHeader)
        /// A body value could not be encoded (see ``RequestError/underlying``).
        public static let encodingFailed = Code(.encodingFailed)

        /// The connection (TCP and TLS handshake) was not established within the connect timeout.
        public static let connectTimedOut = Code(.connectTimedOut)
        /// No byte was sent or received for longer than the idle timeout.
        public static let idleTimedOut = Code(.idleTimedOut)
        /// The whole request took longer than the total timeout.
        public static let totalTimedOut = Code(.totalTimedOut)

        /// The request was cancelled: by its handle, by task cancellation or by `cancelAll()`.
        public static let cancelled = Code(.cancelled)

        /// The host name could not be resolved.
        public static let hostNotFound = Code(.hostNotFound)
        /// The TCP connection could not be made (refused, unreachable).
        public static let connectFailed = Code(.connectFailed)
        /// TLS failed in a way no more precise code names (see ``RequestError/curlMessage``), or
        /// certificates, keys or pins given in a ``TLSConfiguration`` were unusable.
        public static let tlsFailure = Code(.tlsFailure)
        /// The server's certificate chain did not meet its host's ``Pinning``: its key is not one
        /// of the pinned keys, or its chain leads to none of the pinned certificates. Found right
        /// after the TLS handshake: no byte of the request was sent.
        public static let pinningMismatch = Code(.pinningMismatch)
        /// The connection failed while sending or receiving before the response head arrived, or
        /// the server replied with nothing.
        public static let connectionLost = Code(.connectionLost)
        /// The body stopped short after the head arrived: the connection closed or was reset, or
        /// (HTTP/2) the server reset the stream, before the whole announced body came. The same
        /// code over HTTP/1.1 and HTTP/2.
        public static let responseTruncated = Code(.responseTruncated)
        /// The server's reply violated HTTP (malformed headers, an HTTP/2 protocol or flow-control
        /// violation, bad encoding).
        public static let protocolError = Code(.protocolError)

        /// More redirects than the configured maximum.
        public static let tooManyRedirects = Code(.tooManyRedirects)
        /// A redirect would downgrade from https to http, or leave the allowed protocols.
        public static let insecureRedirect = Code(.insecureRedirect)

        /// Validation found a status code outside the acceptable set.
        public static let unacceptableStatus = Code(.unacceptableStatus)
        /// Validation found a content type outside the acceptable set.
        public static let unacceptableContentType = Code(.unacceptableContentType)
        /// The response body could not be decoded into the requested type.
        public static let decodingFailed = Code(.decodingFailed)

        /// The response body exceeded the in-memory cap (counted after content decoding).
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// Reading or writing a local file failed (including a full disk or a file size limit).
        public static let fileIO = Code(.fileIO)
        /// A download's destination exists and the options say not to replace it.
        public static let destinationExists = Code(.destinationExists)
        /// A downloaded file's digest differs from the expected one; the destination was left untouched.
        public static let integrityMismatch = Code(.integrityMismatch)
        /// The request body's stream (an `AsyncSequence` or a pull closure) threw, or made another
        /// number of bytes than the length it announced (see ``RequestError/underlying``).
        public static let bodySourceFailed = Code(.bodySourceFailed)
        /// curl had to send the request body again (a retried connection) but
        /// it is a one-shot stream, or a stream already sent.
        public static let bodyNotRewindable = Code(.bodyNotRewindable)

        /// A blocking call was refused because it was made on a thread where it would freeze or deadlock.
        public static let blockingRefused = Code(.blockingRefused)
        /// The transport has been shut down and accepts no new requests.
        public static let transportShutDown = Code(.transportShutDown)
        /// Any other failure inside libcurl (see ``RequestError/curlCode`` and ``RequestError/curlMessage``).
        public static let transportFailure = Code(.transportFailure)
        /// A cookie given to a ``CookieJar`` has a field a cookie cannot have, or curl refused it.
        public static let invalidCookie = Code(.invalidCookie)
        /// The proxy refused or failed the request before it reached the server: proxy credentials
        /// refused (`407` to a tunnel's `CONNECT`, SOCKS5 authentication), a `CONNECT` or SOCKS5
        /// connection refused, or a broken proxy handshake. (An `http://` request the proxy
        /// forwards gets the proxy's `407` as its response, like any other status.)
        public static let proxyFailure = Code(.proxyFailure)
        /// The request would send credentials — a ``Credential``, an `Authorization` header or
        /// user info in the URL — over plain `http://` to a host other than this machine's
        /// loopback, and neither the request nor the configuration allows it
        /// (``Request/allowingCredentialsOverPlainHTTP(_:)``,
        /// ``Configuration/allowsCredentialsOverPlainHTTP``); nothing was sent.
        public static let credentialsOverPlainHTTP = Code(.credentialsOverPlainHTTP)

        /// The server's certificate chain leads to no trusted certificate authority (an unknown or
        /// private CA, or a missing intermediate). `NSURLErrorServerCertificateHasUnknownRoot`.
        public static let certificateUntrusted = Code(.certificateUntrusted)
        /// The server's certificate signs itself and is not trusted.
        /// `NSURLErrorServerCertificateUntrusted`.
        public static let certificateSelfSigned = Code(.certificateSelfSigned)
        /// A certificate in the server's chain is outside its validity period: expired, or not yet
        /// valid (curl's text says which). `NSURLErrorServerCertificateHasBadDate`.
        public static let certificateExpired = Code(.certificateExpired)
        /// The server's certificate is valid but names another host.
        public static let hostnameMismatch = Code(.hostnameMismatch)
        /// The TLS handshake failed before any certificate was judged: no common TLS version or
        /// cipher (see ``TLSConfiguration/minimumVersion``), or a server that does not speak TLS.
        public static let tlsHandshakeFailed = Code(.tlsHandshakeFailed)
        /// The server asked for a client certificate and refused the one sent, or none was sent
        /// (see ``TLSConfiguration/clientIdentity``). `NSURLErrorClientCertificateRejected`.
        public static let clientCertificateRejected = Code(.clientCertificateRejected)

        /// A ``RequestAdapter`` threw an error other than a ``RequestError`` (see
        /// ``RequestError/underlying``); nothing was sent for that attempt.
        public static let adaptationFailed = Code(.adaptationFailed)
        /// A ``RequestRetrier`` decided ``RetryDecision/fail(_:)`` with an error other than a
        /// ``RequestError`` (see ``RequestError/underlying``).
        public static let retrierFailed = Code(.retrierFailed)
        /// An ``AuthenticationInterceptor`` could not refresh its credential: its
        /// ``Authenticator/refresh(_:)`` threw (see ``RequestError/underlying``). Every request
        /// waiting for that refresh fails with it, and so does every later one until
        /// ``AuthenticationInterceptor/setCredential(_:)`` gives a new credential.
        public static let authenticationRefreshFailed = Code(.authenticationRefreshFailed)
        /// An ``AuthenticationInterceptor`` would have refreshed its credential more often than its
        /// ``RefreshWindow`` allows: the server keeps refusing fresh credentials. Requests fail
        /// with it until ``AuthenticationInterceptor/setCredential(_:)`` gives a new credential.
        public static let tooManyAuthenticationRefreshes = Code(.tooManyAuthenticationRefreshes)

        /// An ``AuthenticationInterceptor`` has no credential to authenticate the request with:
        /// none was given, or ``AuthenticationInterceptor/setCredential(_:)`` removed it. Nothing
        /// was sent. Alamofire's `AuthenticationError.missingCredential`.
        public static let missingAuthenticationCredential = Code(.missingAuthenticationCredential)
        /// The response's header section (every head of the transfer, interim ones included) was
        /// larger than ``Configuration/maximumHeaderSize``, or one header line was larger than
        /// libcurl accepts (100 KiB). The transfer stopped there: no body was read.
        public static let headersTooLarge = Code(.headersTooLarge)
        /// The request's policy is ``CachePolicy/returnCacheDataDontLoad`` and the transport's
        /// cache holds no response for it (or the transport has no cache). Nothing was sent.
        public static let notCached = Code(.notCached)

        /// Whether this code is one of the three timeouts.
        public var isTimeout: Bool {
            self == .connectTimedOut || self == .idleTimedOut || self == .totalTimedOut
        }
    }
}
