import Dispatch
import NIOCore
import NIOHTTP1

/// The single HTTP/1-style request handler behind plaintext HTTP/1.1, HTTP/1.1 over TLS and each
/// HTTP/2 stream: it collects a whole request, asks ``Router`` for a plan, and carries it out.
/// `/upload-sink` requests are the exception: their body goes to an ``UploadSink`` as it arrives.
///
/// All state lives on the channel's event loop. Timers (delay, drip) are cancelled and pattern
/// streaming stops when the channel goes inactive, so nothing outlives the connection.
final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let connectionID: Int
    /// The routes the test registered, consulted before ``Router``'s.
    private let routes: RegisteredRoutes
    /// What happens to the parts of the request being received.
    private var inbound = Inbound.idle
    /// The request heads received on this channel: all of its connection's on HTTP/1, the
    /// stream's one on HTTP/2.
    private var requestCount = 0
    /// The pattern body being written; resumed on writability changes.
    private var streaming: Streaming?
    /// Guards ``continueStreaming(context:)`` against re-entry from writability events it causes.
    private var isStreamingLoopRunning = false
    /// The pending step of a delayed or dripping response.
    private var timer: Scheduled<Void>?
    /// The `count` key of the request whose drip is being written (see ``TestServer/openDripCount(key:)``).
    private var drippingKey: String?

    /// A handler for a channel of connection number `connectionID`, answering `routes` first.
    init(connectionID: Int, routes: RegisteredRoutes) {
        self.connectionID = connectionID
        self.routes = routes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.receive(head, context: context)
        case .body(let chunk):
            self.receive(chunk, context: context)
        case .end:
            self.receiveEnd(context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        self.continueStreaming(context: context)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.stopPendingWork()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.stopPendingWork()
    }

    private func stopPendingWork() {
        self.timer?.cancel()
        self.timer = nil
        self.streaming = nil
        self.stopCountingDrip()
    }

    /// The drip counted under ``drippingKey`` ended.
    private func stopCountingDrip() {
        guard let key = self.drippingKey else { return }
        self.drippingKey = nil
        RequestCounts.noteDrip(key: key, -1)
    }

    /// Starts a request: an ``UploadSink`` takes `/upload-sink` bodies, every other body is collected.
    private func receive(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        self.requestCount += 1
        RequestCounts.note(target: head.uri)
        guard UploadSink.matches(path: ReceivedRequest.path(ofTarget: head.uri)) else {
            self.inbound = .collecting(head, ByteBuffer())
            return
        }
        let request = ReceivedRequest(
            head: head, body: ByteBuffer(), connectionID: self.connectionID, clientAddress: context.channel.remoteAddress?.ipAddress)
        let sink = UploadSink(request: request)
        self.inbound = .sinking(request, sink)
        self.perform(sink.start(isFirstRequestOnConnection: self.requestCount == 1), context: context)
    }

    /// Takes the next piece of the request body.
    private func receive(_ chunk: ByteBuffer, context: ChannelHandlerContext) {
        // Each case sets `.discarding` before changing the payload it took out, so that the
        // payload's storage is uniquely referenced and changes in place.
        switch self.inbound {
        case .collecting(let head, var body):
            self.inbound = .discarding
            var chunk = chunk
            body.writeBuffer(&chunk)
            self.inbound = .collecting(head, body)
        case .sinking(let request, var sink):
            self.inbound = .discarding
            let action = sink.receive(chunk)
            self.inbound = .sinking(request, sink)
            self.perform(action, context: context)
        case .idle, .discarding:
            break
        }
    }

    /// Ends the request: answers it with the router's plan or the sink's answer.
    private func receiveEnd(context: ChannelHandlerContext) {
        let finished = self.inbound
        self.inbound = .idle
        switch finished {
        case .collecting(let head, let body):
            let request = ReceivedRequest(
                head: head, body: body, connectionID: self.connectionID, clientAddress: context.channel.remoteAddress?.ipAddress)
            self.carryOut(self.routes.plan(for: request) ?? Router.plan(for: request), for: request, context: context)
        case .sinking(let request, let sink):
            self.carryOut(sink.answer(), for: request, context: context)
        case .idle, .discarding:
            break
        }
    }

    /// Carries out an upload sink's step; after a close, the rest of the request is dropped.
    private func perform(_ action: UploadSink.Action, context: ChannelHandlerContext) {
        let channel = context.channel
        switch action {
        case .proceed:
            return
        case .close:
            channel.close(promise: nil)
        case .closeOutput:
            // Half-closure is what the sink asks for; a channel that cannot do it is closed whole.
            channel.close(mode: .output).assumeIsolated().whenFailure { _ in
                channel.close(promise: nil)
            }
        }
        self.inbound = .discarding
    }

    private func carryOut(_ plan: ResponsePlan, for request: ReceivedRequest, context: ChannelHandlerContext) {
        switch plan {
        case .complete(let response):
            self.send(response, to: request, context: context)
        case .delayed(let delay, let response):
            self.schedule(after: delay, context: context) {
                self.send(response, to: request, context: context)
            }
        case .offloaded(let compute):
            let target = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            DispatchQueue.global().async {
                let response = compute()
                target.eventLoop.execute {
                    if let response {
                        target.value.handler.send(response, to: request, context: target.value.context)
                    } else {
                        target.value.context.close(promise: nil)
                    }
                }
            }
        case .eventual(let register):
            let target = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            register { response in
                target.eventLoop.execute {
                    target.value.handler.send(response, to: request, context: target.value.context)
                }
            }
        case .pattern(let response):
            let headWritten = self.writeHead(response.status, response.headers, for: request, context: context)
            self.streaming = Streaming(
                stream: response.stream,
                ending: response.ending,
                request: request,
                countKey: RequestCounts.key(of: request.head.uri),
                latestWrite: headWritten
            )
            self.continueStreaming(context: context)
        case .drip(let count, let interval, let initialDelay):
            self.schedule(after: initialDelay, context: context) {
                let headers: HTTPHeaders = ["Content-Type": "application/octet-stream", "Content-Length": String(count)]
                // Counted before the head goes out, so a client that has the head sees the count.
                self.drippingKey = RequestCounts.key(of: request.head.uri)
                self.drippingKey.map { RequestCounts.noteDrip(key: $0, 1) }
                self.writeHead(.ok, headers, for: request, context: context)
                context.flush()
                self.drip(remaining: count, every: interval, for: request, context: context)
            }
        case .silence:
            break
        case .hangUp:
            context.close(promise: nil)
        }
    }

    /// Writes `response` whole; the body is left out for `HEAD` and for statuses without one.
    private func send(_ response: CompleteResponse, to request: ReceivedRequest, context: ChannelHandlerContext) {
        var headers = response.headers
        let statusHasBody = response.status.mayHaveResponseBody
        if statusHasBody && !headers.contains(name: "Content-Length") {
            headers.add(name: "Content-Length", value: String(response.body.readableBytes))
        }
        self.writeHead(response.status, headers, for: request, context: context)
        if statusHasBody && request.head.method != .HEAD && response.body.readableBytes > 0 {
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil)
        }
        self.finish(request, context: context)
    }

    /// Writes the next pattern chunks while the channel accepts them; ends the body after the last.
    private func continueStreaming(context: ChannelHandlerContext) {
        guard !self.isStreamingLoopRunning else { return }
        self.isStreamingLoopRunning = true
        defer { self.isStreamingLoopRunning = false }

        // Finishing may synchronously deliver the next pipelined request, which can start a new
        // stream; the loop then carries on with that one.
        while context.channel.isWritable, var current = self.streaming {
            if let chunk = current.stream.nextChunk() {
                current.countKey.map { RequestCounts.noteServed(key: $0, chunk.readableBytes) }
                current.latestWrite = context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(chunk))))
                self.streaming = current
            } else {
                self.streaming = nil
                self.endBody(of: current, context: context)
            }
        }
    }

    /// Ends a pattern body whose bytes are all written: with the response's end; for a cut body
    /// by closing the channel (on HTTP/2 a stream: resetting it) once the last byte is out; for a
    /// stalled one, not at all.
    private func endBody(of streaming: Streaming, context: ChannelHandlerContext) {
        switch streaming.ending {
        case .complete:
            self.finish(streaming.request, context: context)
            return
        case .stall:
            context.flush()
            return
        case .close:
            break
        }
        context.flush()
        let channel = context.channel
        streaming.latestWrite.assumeIsolated().whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// Sends one `*` per `interval`, `remaining` times, then finishes the response.
    private func drip(
        remaining: Int,
        every interval: TimeAmount,
        for request: ReceivedRequest,
        context: ChannelHandlerContext
    ) {
        guard remaining > 0 else {
            self.stopCountingDrip()
            self.finish(request, context: context)
            return
        }
        self.schedule(after: interval, context: context) {
            context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "*")))), promise: nil)
            self.drip(remaining: remaining - 1, every: interval, for: request, context: context)
        }
    }

    /// Writes (without flushing) the response head; returns the write's completion.
    @discardableResult
    private func writeHead(
        _ status: HTTPResponseStatus,
        _ headers: HTTPHeaders,
        for request: ReceivedRequest,
        context: ChannelHandlerContext
    ) -> EventLoopFuture<Void> {
        var head = HTTPResponseHead(version: request.head.version, status: status, headers: headers)
        if !request.keepsConnectionAlive {
            head.headers.replaceOrAdd(name: "Connection", value: "close")
        }
        return context.write(Self.wrapOutboundOut(.head(head)))
    }

    /// Ends the response and, when the request asked for it, closes the connection afterwards.
    private func finish(_ request: ReceivedRequest, context: ChannelHandlerContext) {
        let written = context.writeAndFlush(Self.wrapOutboundOut(.end(nil)))
        guard !request.keepsConnectionAlive else { return }
        let channel = context.channel
        written.assumeIsolated().whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func schedule(after delay: TimeAmount, context: ChannelHandlerContext, _ work: @escaping () -> Void) {
        self.timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay, work)
    }
}

/// A pattern body being written by ``RequestHandler``.
private struct Streaming {
    /// The bytes still to write.
    var stream: PatternStream
    /// What follows the last byte.
    let ending: PatternResponse.Ending
    /// The request being answered.
    let request: ReceivedRequest
    /// Its `count` key, under which the body bytes are counted (see ``TestServer/bytesServed(key:)``).
    let countKey: String?
    /// The completion of the latest write of this response, which a cut body waits for before
    /// closing, so that every byte it meant to send is out.
    var latestWrite: EventLoopFuture<Void>
}

/// What ``RequestHandler`` does with the parts of the request being received.
private enum Inbound {
    /// No request in progress.
    case idle
    /// Collecting the whole body for ``Router``.
    case collecting(HTTPRequestHead, ByteBuffer)
    /// Feeding the body to an ``UploadSink`` as it arrives.
    case sinking(ReceivedRequest, UploadSink)
    /// Dropping the rest of a request whose connection is closing.
    case discarding
}
