import NIOCore

/// What the fault server sends for an ended request, per ``H2Fault``.
extension H2FaultConnection {
    /// Answers `request` as the listener's fault says, and records what it does (before it
    /// writes: a test that has its response finds the record).
    func respond(to request: H2FaultRequest, context: ChannelHandlerContext) {
        let stream = request.streamID
        guard !request.path.hasPrefix(H2FaultServer.sparedPathPrefix) else { return answer(request, context: context) }
        switch fault {
        case .resetMidBody:
            ledger.record(request.record(connection: connection, .faulted))
            write(Self.partial(stream), thenOnceRead: { context in
                self.write([.resetStream(stream, errorCode: H2ErrorCode.internalError)], context: context)
            }, context: context)
        case .goAway(let count, let answered), .goAwayThenCloseMidBody(let count, let answered):
            guard connection == 0 else { return answer(request, context: context) }
            held.append(request)
            if held.count == count { goAway(answering: answered, context: context) }
        case .refuseStreams:
            guard ledger.takeRefusal() else { return answer(request, context: context) }
            ledger.record(request.record(connection: connection, .refused))
            write([.resetStream(stream, errorCode: H2ErrorCode.refusedStream)], context: context)
        case .continuationFlood:
            ledger.record(request.record(connection: connection, .faulted))
            let head = H2HeaderBlock.encode([(":status", "200")])
            write([.headers(stream: stream, fragment: head, endHeaders: false, endStream: false)], context: context)
            flood(stream, context: context)
        case .oversizedHeaderSection(let bytes):
            ledger.record(request.record(connection: connection, .faulted))
            write(Self.headerFrames(stream, block: Self.oversizedBlock(bytes: bytes)), context: context)
        case .oversizedHeaderField(let bytes):
            ledger.record(request.record(connection: connection, .faulted))
            let block = H2HeaderBlock.encode([
                (":status", "200"), ("content-length", "0"), ("x-huge", String(repeating: "h", count: bytes)),
            ])
            write(Self.headerFrames(stream, block: block), context: context)
        case .dataBeyondContentLength:
            ledger.record(request.record(connection: connection, .faulted))
            write(
                [Self.head(stream, contentLength: 10),
                 .data(stream: stream, bytes: ByteBuffer(repeating: UInt8(ascii: "x"), count: 20), endStream: true)],
                context: context)
        case .closeMidBody:
            ledger.record(request.record(connection: connection, .faulted))
            write(Self.partial(stream), context: context)
            context.close(promise: nil)
        case .resetConnectionMidBody:
            ledger.record(request.record(connection: connection, .faulted))
            write(Self.partial(stream), thenOnceRead: { _ in self.rawClose.reset() }, context: context)
        case .stallAfterHeaders:
            ledger.record(request.record(connection: connection, .faulted))
            write([Self.head(stream, contentLength: 1000)], context: context)
        }
    }

    /// A whole `200` whose body is the method, a space and the path.
    private func answer(_ request: H2FaultRequest, context: ChannelHandlerContext) {
        let body = ByteBuffer(string: "\(request.method) \(request.path)")
        ledger.record(request.record(connection: connection, .answered))
        write(
            [Self.head(request.streamID, contentLength: body.readableBytes),
             .data(stream: request.streamID, bytes: body, endStream: true)],
            context: context)
    }

    /// The GOAWAY faults, once every expected request has arrived: GOAWAY with the last stream id
    /// of the `answered`-th, then the answers up to it (the last one cut for
    /// ``H2Fault/goAwayThenCloseMidBody(requests:answered:)``); the rest are never processed.
    private func goAway(answering answered: Int, context: ChannelHandlerContext) {
        let arrived = held.sorted { $0.streamID < $1.streamID }
        held = []
        let lastStreamID = answered > 0 ? arrived[min(answered, arrived.count) - 1].streamID : 0
        for request in arrived where request.streamID > lastStreamID {
            ledger.record(request.record(connection: connection, .notProcessed))
        }
        write([.goAway(lastStreamID: lastStreamID, errorCode: H2ErrorCode.noError)], context: context)
        for request in arrived where request.streamID <= lastStreamID {
            if request.streamID == lastStreamID, case .goAwayThenCloseMidBody = fault {
                ledger.record(request.record(connection: connection, .faulted))
                write(Self.partial(request.streamID), context: context)
                context.close(promise: nil)
            } else {
                answer(request, context: context)
            }
        }
    }

    /// A `200` head with `content-length`.
    private static func head(_ stream: UInt32, contentLength: Int) -> H2Frame {
        let block = H2HeaderBlock.encode([
            (":status", "200"), ("content-type", "text/plain"), ("content-length", String(contentLength)),
        ])
        return .headers(stream: stream, fragment: block, endHeaders: true, endStream: false)
    }

    /// A `200` head announcing 1000 bytes and the first 100 of them.
    private static func partial(_ stream: UInt32) -> [H2Frame] {
        [head(stream, contentLength: 1000),
         .data(stream: stream, bytes: ByteBuffer(repeating: UInt8(ascii: "p"), count: 100), endStream: false)]
    }

    /// A header field of about 1 KiB: `name` and 1000 bytes of value.
    private static func kibibyteField(_ name: String, to block: inout ByteBuffer) {
        H2HeaderBlock.append(name, String(repeating: "a", count: 1000), to: &block)
    }

    /// A `200` header block of at least `bytes` bytes: fields of about 1 KiB.
    private static func oversizedBlock(bytes: Int) -> ByteBuffer {
        var block = H2HeaderBlock.encode([(":status", "200"), ("content-length", "0")])
        var index = 0
        while block.readableBytes < bytes {
            kibibyteField("x-big-\(index)", to: &block)
            index += 1
        }
        return block
    }

    /// `block` as the head of a response without body: a HEADERS frame (ending the stream) and
    /// CONTINUATION frames, each with 16 KiB of the block at most.
    private static func headerFrames(_ stream: UInt32, block: ByteBuffer) -> [H2Frame] {
        var block = block
        var frames: [H2Frame] = []
        while block.readableBytes > 0 {
            let fragment = block.readSlice(length: min(block.readableBytes, H2Frame.defaultMaximumPayload)) ?? ByteBuffer()
            let last = block.readableBytes == 0
            frames.append(
                frames.isEmpty
                    ? .headers(stream: stream, fragment: fragment, endHeaders: last, endStream: true)
                    : .continuation(stream: stream, fragment: fragment, endHeaders: last))
        }
        return frames
    }

    /// CONTINUATION frames of one 1 KiB field each, written in batches, each batch after the one
    /// before reached the socket: the flood keeps pace with what the client reads, and ends when
    /// the client closes (a write fails) or after ``H2FaultServer/continuationFloodLimit`` frames.
    private func flood(_ stream: UInt32, context: ChannelHandlerContext) {
        let batch = 16
        var buffer = context.channel.allocator.buffer(capacity: batch * 1100)
        for index in 0..<batch {
            var block = ByteBuffer()
            Self.kibibyteField("x-flood-\(index)", to: &block)
            buffer.writeH2Frame(.continuation(stream: stream, fragment: block, endHeaders: false))
        }
        context.writeAndFlush(Self.wrapOutboundOut(buffer)).assumeIsolated().whenComplete { result in
            guard case .success = result else { return }
            let total = self.ledger.addContinuationFrames(batch)
            guard total < H2FaultServer.continuationFloodLimit else {
                context.close(promise: nil)
                return
            }
            // On the next loop turn: a write that completes at once must not recurse.
            context.eventLoop.assumeIsolated().execute { self.flood(stream, context: context) }
        }
    }
}
