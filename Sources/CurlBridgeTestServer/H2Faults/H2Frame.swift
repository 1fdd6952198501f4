import NIOCore

/// One HTTP/2 frame as it travels on the wire (RFC 9113 §4.1): a 9-byte header — payload
/// length, type, flags, stream id — and the payload.
///
/// The fault server reads and writes these itself instead of using NIOHTTP2, whose state
/// machines refuse to send what the faults need (a reset mid-body, a header block that never
/// ends, more DATA than `content-length` announced).
struct H2Frame {
    /// Frame types (RFC 9113 §6).
    enum Kind {
        static let data: UInt8 = 0x0
        static let headers: UInt8 = 0x1
        static let resetStream: UInt8 = 0x3
        static let settings: UInt8 = 0x4
        static let ping: UInt8 = 0x6
        static let goAway: UInt8 = 0x7
        static let continuation: UInt8 = 0x9
    }

    /// Frame flags (RFC 9113 §6).
    enum Flag {
        /// DATA, HEADERS: the last frame the sender sends on the stream.
        static let endStream: UInt8 = 0x1
        /// SETTINGS, PING: an acknowledgement.
        static let ack: UInt8 = 0x1
        /// HEADERS, CONTINUATION: the last frame of a header block.
        static let endHeaders: UInt8 = 0x4
        /// DATA, HEADERS: a pad length byte leads the payload and padding ends it.
        static let padded: UInt8 = 0x8
        /// HEADERS: five bytes of priority lead the header block fragment.
        static let priority: UInt8 = 0x20
    }

    /// The largest payload a peer accepts before it announces more (SETTINGS_MAX_FRAME_SIZE's
    /// initial value); libcurl 7.88 never announces more.
    static let defaultMaximumPayload = 16_384

    /// The frame type, one of ``Kind``'s values (or another, which the server ignores).
    var type: UInt8
    /// The flags, ``Flag``'s bits.
    var flags: UInt8
    /// The stream the frame belongs to; 0 for the connection.
    var streamID: UInt32
    /// The payload, without the frame header.
    var payload: ByteBuffer

    /// Whether every bit of `flag` is set.
    func has(_ flag: UInt8) -> Bool { flags & flag == flag }
}

/// HTTP/2 error codes (RFC 9113 §7) the fault server sends in RST_STREAM and GOAWAY.
enum H2ErrorCode {
    static let noError: UInt32 = 0x0
    static let protocolError: UInt32 = 0x1
    static let internalError: UInt32 = 0x2
    static let refusedStream: UInt32 = 0x7
}
