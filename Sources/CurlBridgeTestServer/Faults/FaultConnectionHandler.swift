import NIOCore

/// One connection of ``FaultServer``: reads each request, notes it in the ledger, and plays its
/// fault's script with exactly the bytes and closes the script names.
///
/// Requests are read one at a time (keep-alive: the next is read when a script ends without
/// closing). While a script still runs (stalling, dripping, sending) what arrives is kept for
/// later; a client that closes then is noted as having given up early.
final class FaultConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let ledger: FaultLedger
    private let rawClose: RawSocketClose
    private let answersTLSInPlaintext: Bool
    private let connection: Int
    private var received: [UInt8] = []
    private var requestsRead = 0
    private var sawFirstByte = false
    /// The key of the request whose script is running, and the bytes written for it so far.
    private var answering: (key: String, bytesSent: Int)?
    private var closing = false

    /// - Parameter answersTLSInPlaintext: Whether a connection that opens with a TLS record (a
    ///   client hello on the plaintext port) gets a plaintext HTTP answer and a close.
    init(ledger: FaultLedger, rawClose: RawSocketClose, answersTLSInPlaintext: Bool) {
        self.ledger = ledger
        self.rawClose = rawClose
        self.answersTLSInPlaintext = answersTLSInPlaintext
        self.connection = ledger.nextConnection()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let buffer = unwrapInboundIn(data)
        received += buffer.readableBytesView
        if !sawFirstByte, let first = received.first {
            sawFirstByte = true
            if answersTLSInPlaintext && first == 0x16 {
                received.removeAll()
                answering = ("", 0)
                let answer = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 23\r\n\r\nthis port is plain HTTP"
                run([.send(Array(answer.utf8)), .close(.fin)], context: context)
                return
            }
        }
        takeRequest(context: context)
    }

    func channelActive(context: ChannelHandlerContext) {
        ledger.connection(opened: true)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        ledger.connection(opened: false)
        if let answering, !closing {
            ledger.closedByClient(key: answering.key, bytesSent: answering.bytesSent)
        }
        answering = nil
        closing = true
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset, a TLS failure or an unclean TLS end from the client: the connection is over.
        context.close(promise: nil)
    }

    private func takeRequest(context: ChannelHandlerContext) {
        guard answering == nil, !closing,
            let request = FaultRequest.take(from: &received, indexOnConnection: requestsRead + 1, connection: connection)
        else { return }
        requestsRead += 1
        ledger.received(request)
        answering = (request.key, 0)
        let fault = request.path.hasPrefix("/fault/") ? Fault(rawValue: String(request.path.dropFirst(7))) : nil
        let notFound = Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)
        run(fault?.script(for: request) ?? [.send(notFound)], context: context)
    }

    private func play(_ steps: ArraySlice<FaultStep>, context: ChannelHandlerContext) {
        guard !closing else { return }
        guard let step = steps.first else {
            answering = nil
            takeRequest(context: context)
            return
        }
        let rest = steps.dropFirst()
        switch step {
        case .send(let bytes):
            write(bytes, context: context).assumeIsolated().whenSuccess { self.play(rest, context: context) }
        case .drip(let bytes, let interval):
            guard let first = bytes.first else { return play(rest, context: context) }
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(interval))) {
                self.write([first], context: context).assumeIsolated().whenSuccess {
                    self.run([.drip(Array(bytes.dropFirst()), intervalMilliseconds: interval)] + rest, context: context)
                }
            }
        case .sendForever(let chunk):
            // Each write continues from the event loop, not from the write's callback, so a
            // client that reads fast does not grow the stack.
            write(chunk, context: context).assumeIsolated().whenSuccess {
                context.eventLoop.assumeIsolated().execute { self.play(steps, context: context) }
            }
        case .stall:
            break
        case .close(let kind):
            answering = nil
            closing = true
            switch kind {
            case .fin:
                context.close(promise: nil)
            case .uncleanTLS:
                rawClose.close()
            case .reset:
                rawClose.reset()
            }
        }
    }

    private func run(_ steps: [FaultStep], context: ChannelHandlerContext) {
        play(steps[...], context: context)
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        let written = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)))
        written.assumeIsolated().whenSuccess {
            if self.answering != nil { self.answering?.bytesSent += bytes.count }
        }
        return written
    }
}
