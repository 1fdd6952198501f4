/// How a transfer went, as libcurl measured it (`CURLINFO_*_TIME_T` and friends).
///
/// Times are measured from the start of the transfer; a phase that did not happen (no TLS, a
/// reused connection) reports zero.
public struct TransferMetrics: Sendable, Hashable {
    /// Until the host name was resolved.
    public var nameLookup: Duration
    /// Until the TCP connection was established.
    public var connect: Duration
    /// Until the TLS handshake finished.
    public var tlsHandshake: Duration
    /// Until the request was about to be sent.
    public var preTransfer: Duration
    /// Until the first response byte arrived.
    public var firstByte: Duration
    /// The whole transfer.
    public var total: Duration
    /// Request bytes sent (body).
    public var bytesSent: Int64
    /// Response body bytes received, as on the wire.
    public var bytesReceived: Int64
    /// Response header bytes received.
    public var headerBytes: Int
    /// Whether the transfer used an already open connection (keep-alive or an HTTP/2 connection
    /// shared with other requests).
    public var reusedConnection: Bool
    /// The local TCP port of the connection; transfers that share a connection share it.
    public var localPort: Int
    /// The server's IP address.
    public var remoteAddress: String
    /// The server's port.
    public var remotePort: Int
    /// How many redirects were followed before this, the final transfer (whose figures the
    /// others are).
    public var redirectCount: Int
    /// Where the response came from with respect to the transport's ``HTTPCache``: ``CacheStatus/bypassed``
    /// when there is none. A response from the cache reports zero times and sizes, but for a
    /// ``CacheStatus/revalidated`` one: those of the revalidation.
    public var cacheStatus: CacheStatus

    /// Creates metrics.
    public init(
        nameLookup: Duration, connect: Duration, tlsHandshake: Duration, preTransfer: Duration,
        firstByte: Duration, total: Duration, bytesSent: Int64, bytesReceived: Int64, headerBytes: Int,
        reusedConnection: Bool, localPort: Int, remoteAddress: String, remotePort: Int, redirectCount: Int = 0,
        cacheStatus: CacheStatus = .bypassed
    ) {
        self.redirectCount = redirectCount
        self.cacheStatus = cacheStatus
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.preTransfer = preTransfer
        self.firstByte = firstByte
        self.total = total
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.headerBytes = headerBytes
        self.reusedConnection = reusedConnection
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
    }
}

extension TransferMetrics {
    /// The metrics of a response no network transfer carried (a stub's, the cache's): zero times
    /// and sizes, no connection, ``CacheStatus/bypassed``. The one place such metrics are made;
    /// each answerer sets what it knows on a copy.
    static let zero = TransferMetrics(
        nameLookup: .zero, connect: .zero, tlsHandshake: .zero, preTransfer: .zero, firstByte: .zero, total: .zero,
        bytesSent: 0, bytesReceived: 0, headerBytes: 0, reusedConnection: false, localPort: 0, remoteAddress: "", remotePort: 0)
}
