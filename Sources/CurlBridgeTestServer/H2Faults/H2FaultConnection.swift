import NIOCore
import NIOHPACK

/// One accepted connection of an ``H2FaultServer``, after TLS: reads the client's preface and
/// frames, acknowledges SETTINGS and PING, assembles each stream's request (HPACK-decoded
/// header block and the count of body bytes) and, once the request has ended, answers it as the
/// listener's ``H2Fault`` says (see `H2FaultConnection+Responses.swift`).
///
/// Confined to the channel's event loop. Frames the server has no use for (WINDOW_UPDATE,
/// PRIORITY, the client's RST_STREAM and GOAWAY) are read and ignored.
final class H2FaultConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The listener's fault.
    let fault: H2Fault
    /// The listener's shared records.
    let ledger: H2FaultLedger
    /// This connection's index among the listener's.
    let connection: Int
    /// Closes the socket beneath TLS, for ``H2Fault/resetConnectionMidBody``.
    let rawClose: RawSocketClose

    private var reader = H2FrameReader()
    /// Request header blocks use HPACK's dynamic table: one decoder for the whole connection,
    /// fed every block in order.
    private var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
    private var sentSettings = false
    /// A header block still waiting for CONTINUATION: its stream, fragments so far and
    /// whether HEADERS ended the stream.
    private var openBlock: (stream: UInt32, fragments: ByteBuffer, endStream: Bool)?
    /// Requests whose stream has not ended yet.
    private var inProgress: [UInt32: H2FaultRequest] = [:]
    /// Ended requests that a GOAWAY fault holds until enough have arrived.
    var held: [H2FaultRequest] = []
    /// What to do when the client acknowledges the PING with this payload.
    private var afterPingAcknowledged: [ByteBuffer: (ChannelHandlerContext) -> Void] = [:]

    init(fault: H2Fault, ledger: H2FaultLedger, rawClose: RawSocketClose) {
        self.fault = fault
        self.ledger = ledger
        self.rawClose = rawClose
        self.connection = ledger.acceptConnection()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reader.append(Self.unwrapInboundIn(data))
        do {
            while let frame = try reader.next() {
                try handle(frame, context: context)
            }
        } catch {
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Why a connection's frames cannot be served.
    private enum Violation: Error {
        case malformedFrame
        case continuationWithoutHeaders
    }

    private func handle(_ frame: H2Frame, context: ChannelHandlerContext) throws {
        if !sentSettings {
            sentSettings = true
            write([.settings(ack: false)], context: context)
        }
        if openBlock != nil, frame.type != H2Frame.Kind.continuation {
            throw Violation.continuationWithoutHeaders  // RFC 9113 §6.10: nothing may interleave
        }
        switch frame.type {
        case H2Frame.Kind.settings where !frame.has(H2Frame.Flag.ack):
            write([.settings(ack: true)], context: context)
        case H2Frame.Kind.ping where !frame.has(H2Frame.Flag.ack):
            write([.pingAck(frame.payload)], context: context)
        case H2Frame.Kind.ping:
            afterPingAcknowledged.removeValue(forKey: frame.payload)?(context)
        case H2Frame.Kind.headers:
            guard let fragment = frame.headerBlockFragment else { throw Violation.malformedFrame }
            openBlock = (frame.streamID, fragment, frame.has(H2Frame.Flag.endStream))
            if frame.has(H2Frame.Flag.endHeaders) { try closeBlock(context: context) }
        case H2Frame.Kind.continuation:
            guard var block = openBlock, block.stream == frame.streamID else {
                throw Violation.continuationWithoutHeaders
            }
            var fragment = frame.payload
            block.fragments.writeBuffer(&fragment)
            openBlock = block
            if frame.has(H2Frame.Flag.endHeaders) { try closeBlock(context: context) }
        case H2Frame.Kind.data:
            inProgress[frame.streamID]?.bodyBytes += frame.payload.readableBytes
            if frame.has(H2Frame.Flag.endStream) { end(frame.streamID, context: context) }
        default:
            break
        }
    }

    /// Decodes the finished header block: a new request, or trailers of one in progress.
    private func closeBlock(context: ChannelHandlerContext) throws {
        guard var block = openBlock else { return }
        openBlock = nil
        let fields = try decoder.decodeHeaders(from: &block.fragments)
        if inProgress[block.stream] == nil {
            inProgress[block.stream] = H2FaultRequest(
                streamID: block.stream, method: fields.first(name: ":method") ?? "",
                path: fields.first(name: ":path") ?? "")
        }
        if block.endStream { end(block.stream, context: context) }
    }

    private func end(_ stream: UInt32, context: ChannelHandlerContext) {
        guard let request = inProgress.removeValue(forKey: stream) else { return }
        respond(to: request, context: context)
    }

    /// Writes `frames` in one buffer and flushes.
    func write(_ frames: [H2Frame], context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: 256)
        for frame in frames { buffer.writeH2Frame(frame) }
        context.writeAndFlush(Self.wrapOutboundOut(buffer), promise: nil)
    }

    /// Writes `frames` and a PING after them, and runs `action` when the client acknowledges the
    /// PING: by then it has read the frames (curl answers a PING in the same read that hands the
    /// response head to the transfer), so what `action` does arrives in a later read.
    func write(_ frames: [H2Frame], thenOnceRead action: @escaping (ChannelHandlerContext) -> Void, context: ChannelHandlerContext) {
        var payload = ByteBuffer()
        payload.writeInteger(UInt64(frames.first?.streamID ?? 0))
        afterPingAcknowledged[payload] = action
        write(frames + [.ping(payload)], context: context)
    }
}
