import CBenchSwiftFloor
@_spi(KeptWork) import CurlBridge

/// A request of the kept floor (styles `kept-*`): the floor plus what every CurlBridge request
/// does whatever its configuration, and no more — its own URL, checked as CurlBridge checks it
/// (`KeptWork.isPlainURL`); each header line through CurlBridge's response head guard; the
/// transfer's metrics read as `TransferMetrics` reads them; and a cancel that reaches the transfer
/// (async: a task cancellation handler; callback and blocking: the transfer itself, as a handle).
/// The blocking style also asks the blocking guard before each call. It leaves out what CurlBridge
/// could in principle skip for a plain GET (the request value and its preparation, the policies'
/// decisions, logging, the error model, the transfer tables), and also guarantees on by default
/// that are cheap but not skippable (the idle clock, the protocol lock, the body cap, the
/// response's URL and version, the cookie locks): a lower bound by those.
struct KeptRequest: Sendable {
    let url: String
    let maximumHeaderSize: Int

    /// A request for `url`, `nil` when CurlBridge would not send it as a plain absolute URL.
    init?(url: String, maximumHeaderSize: Int) {
        guard KeptWork.isPlainURL(url) else { return nil }
        self.url = url
        self.maximumHeaderSize = maximumHeaderSize
    }
}

extension KeptRequest {
    /// The same request for the next call, its URL checked again as each CurlBridge request's is.
    func again() -> KeptRequest? {
        KeptRequest(url: url, maximumHeaderSize: maximumHeaderSize)
    }
}

/// What CurlBridge's `TransferMetrics` holds, made from curl's figures the same way, in one
/// allocation: as a CurlBridge `Response` holds its metrics and everything else, in one box.
final class FloorMetrics: Sendable {
    let nameLookup, connect, tlsHandshake, preTransfer, firstByte, total: Duration
    let bytesSent, bytesReceived: Int64
    let headerBytes: Int
    let reusedConnection: Bool
    let localPort: Int
    let remoteAddress: String
    let remotePort: Int

    /// The metrics of the finished transfer on `easy`.
    init(_ easy: UnsafeMutableRawPointer) {
        var read = swift_floor_metrics()
        swift_floor_read_metrics(easy, &read)
        nameLookup = .microseconds(read.name_lookup)
        connect = .microseconds(read.connect)
        tlsHandshake = .microseconds(read.tls_handshake)
        preTransfer = .microseconds(read.pre_transfer)
        firstByte = .microseconds(read.first_byte)
        total = .microseconds(read.total)
        bytesSent = Int64(read.bytes_sent)
        bytesReceived = Int64(read.bytes_received)
        headerBytes = read.header_bytes
        reusedConnection = read.connects == 0
        localPort = read.local_port
        remoteAddress = read.remote_address.map { String(cString: $0) } ?? ""
        remotePort = read.remote_port
    }
}
