import NIOCore

/// Cuts a server connection's decrypted bytes into the client's connection preface and then
/// HTTP/2 frames; a value type fed by the channel handler.
struct H2FrameReader {
    /// What a client connection starts with (RFC 9113 §3.4).
    static let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// The largest frame payload accepted: more than a client sends (its own limit is 16 KiB), a
    /// bound on what one connection can make the server buffer.
    static let maximumPayload = 1 << 20

    /// Why the bytes are not HTTP/2 from a client.
    enum Failure: Error {
        case badPreface
        case frameTooLarge(Int)
    }

    private var buffered = ByteBuffer()
    private var prefaceSeen = false

    /// Appends bytes read from the connection.
    mutating func append(_ bytes: ByteBuffer) {
        var bytes = bytes
        buffered.writeBuffer(&bytes)
    }

    /// The next whole frame, or `nil` until more bytes arrive.
    ///
    /// - Throws: ``Failure`` when the preface is wrong or a frame announces more than
    ///   ``maximumPayload`` bytes.
    mutating func next() throws(Failure) -> H2Frame? {
        if !prefaceSeen {
            guard buffered.readableBytes >= Self.clientPreface.count else { return nil }
            guard buffered.readBytes(length: Self.clientPreface.count) == Self.clientPreface else {
                throw .badPreface
            }
            prefaceSeen = true
        }
        guard buffered.readableBytes >= 9,
            let high = buffered.getInteger(at: buffered.readerIndex, as: UInt8.self),
            let low = buffered.getInteger(at: buffered.readerIndex + 1, as: UInt16.self)
        else { return nil }
        let length = Int(high) << 16 | Int(low)
        guard length <= Self.maximumPayload else { throw .frameTooLarge(length) }
        guard buffered.readableBytes >= 9 + length else { return nil }
        buffered.moveReaderIndex(forwardBy: 3)
        guard let type = buffered.readInteger(as: UInt8.self),
            let flags = buffered.readInteger(as: UInt8.self),
            let stream = buffered.readInteger(as: UInt32.self),
            let payload = buffered.readSlice(length: length)
        else { return nil }
        buffered.discardReadBytes()
        return H2Frame(type: type, flags: flags, streamID: stream & 0x7FFF_FFFF, payload: payload)
    }
}
