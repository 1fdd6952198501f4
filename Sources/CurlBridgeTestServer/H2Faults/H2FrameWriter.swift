import NIOCore

/// The frames the fault server sends, serialized onto a `ByteBuffer`.
extension ByteBuffer {
    /// Appends `frame`'s 9-byte header and payload.
    mutating func writeH2Frame(_ frame: H2Frame) {
        let length = frame.payload.readableBytes
        writeInteger(UInt8(truncatingIfNeeded: length >> 16))
        writeInteger(UInt16(truncatingIfNeeded: length))
        writeInteger(frame.type)
        writeInteger(frame.flags)
        writeInteger(frame.streamID & 0x7FFF_FFFF)
        var payload = frame.payload
        writeBuffer(&payload)
    }
}

extension H2Frame {
    /// An empty SETTINGS frame (every setting at its initial value), or its acknowledgement.
    static func settings(ack: Bool) -> H2Frame {
        H2Frame(type: Kind.settings, flags: ack ? Flag.ack : 0, streamID: 0, payload: ByteBuffer())
    }

    /// A PING carrying `payload` (8 bytes), which the peer must echo in its acknowledgement.
    static func ping(_ payload: ByteBuffer) -> H2Frame {
        H2Frame(type: Kind.ping, flags: 0, streamID: 0, payload: payload)
    }

    /// A PING acknowledgement echoing `payload`.
    static func pingAck(_ payload: ByteBuffer) -> H2Frame {
        H2Frame(type: Kind.ping, flags: Flag.ack, streamID: 0, payload: payload)
    }

    /// HEADERS carrying `fragment` (an HPACK header block or its first part).
    static func headers(stream: UInt32, fragment: ByteBuffer, endHeaders: Bool, endStream: Bool) -> H2Frame {
        let flags = (endHeaders ? Flag.endHeaders : 0) | (endStream ? Flag.endStream : 0)
        return H2Frame(type: Kind.headers, flags: flags, streamID: stream, payload: fragment)
    }

    /// CONTINUATION carrying the next part of a header block.
    static func continuation(stream: UInt32, fragment: ByteBuffer, endHeaders: Bool) -> H2Frame {
        H2Frame(type: Kind.continuation, flags: endHeaders ? Flag.endHeaders : 0, streamID: stream, payload: fragment)
    }

    /// DATA carrying `bytes`.
    static func data(stream: UInt32, bytes: ByteBuffer, endStream: Bool) -> H2Frame {
        H2Frame(type: Kind.data, flags: endStream ? Flag.endStream : 0, streamID: stream, payload: bytes)
    }

    /// RST_STREAM with `errorCode`.
    static func resetStream(_ stream: UInt32, errorCode: UInt32) -> H2Frame {
        var payload = ByteBuffer()
        payload.writeInteger(errorCode)
        return H2Frame(type: Kind.resetStream, flags: 0, streamID: stream, payload: payload)
    }

    /// GOAWAY: streams above `lastStreamID` were not and will not be processed.
    static func goAway(lastStreamID: UInt32, errorCode: UInt32) -> H2Frame {
        var payload = ByteBuffer()
        payload.writeInteger(lastStreamID & 0x7FFF_FFFF)
        payload.writeInteger(errorCode)
        return H2Frame(type: Kind.goAway, flags: 0, streamID: 0, payload: payload)
    }

    /// The payload of a HEADERS frame without its padding and priority fields: the header block
    /// fragment. `nil` if the frame is too short for the fields its flags announce.
    var headerBlockFragment: ByteBuffer? {
        var payload = self.payload
        var padding = 0
        if has(Flag.padded) {
            guard let length = payload.readInteger(as: UInt8.self) else { return nil }
            padding = Int(length)
        }
        if type == Kind.headers, has(Flag.priority) {
            guard payload.readSlice(length: 5) != nil else { return nil }
        }
        guard payload.readableBytes >= padding else { return nil }
        return payload.readSlice(length: payload.readableBytes - padding)
    }
}
