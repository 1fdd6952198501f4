/// One step of a fault's script: what the server does, in order, after reading a request.
enum FaultStep: Sendable {
    /// Writes these bytes exactly and flushes.
    case send([UInt8])
    /// Writes these bytes one at a time, one every `intervalMilliseconds`.
    case drip([UInt8], intervalMilliseconds: Int)
    /// Writes this chunk again and again until the client closes the connection.
    case sendForever([UInt8])
    /// Sends nothing more and keeps the connection open; what arrives is read and dropped, until
    /// the client closes.
    case stall
    /// Closes the connection.
    case close(FaultClose)
}

/// How a ``FaultStep/close(_:)`` ends the connection.
enum FaultClose: Sendable {
    /// An orderly close: FIN (after TLS's close_notify on a TLS connection).
    case fin
    /// A reset: `SO_LINGER` 0, then close, so the kernel sends RST and no FIN.
    case reset
    /// FIN without TLS's close_notify: the TCP connection ends under the TLS session (on a
    /// plaintext connection the same as ``fin``).
    case uncleanTLS

    /// `mode=rst` asks for a reset, anything else for an orderly close.
    init(mode: String?) {
        self = mode == "rst" ? .reset : .fin
    }
}
