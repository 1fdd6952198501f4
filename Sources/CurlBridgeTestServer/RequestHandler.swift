import Dispatch
import NIOCore
import NIOHTTP1

/// The single HTTP/1-style request handler behind plaintext HTTP/1.1, HTTP/1.1 over TLS and each
/// HTTP/2 stream: it collects a whole request, asks ``Router`` for a plan, and carries it out.
///
/// All state lives on the channel's event loop. Timers (delay, drip) are cancelled and pattern
/// streaming stops when the channel goes inactive, so nothing outlives the connection.
final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let connectionID: Int
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// The pattern body being written and the request it answers; resumed on writability changes.
    private var streaming: (stream: PatternStream, request: ReceivedRequest)?
    /// Guards ``continueStreaming(context:)`` against re-entry from writability events it causes.
    private var isStreamingLoopRunning = false
    /// The pending step of a delayed or dripping response.
    private var timer: Scheduled<Void>?

    /// A handler for a channel of connection number `connectionID`.
    init(connectionID: Int) {
        self.connectionID = connectionID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body = ByteBuffer()
        case .body(var chunk):
            self.body.writeBuffer(&chunk)
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            let request = ReceivedRequest(head: head, body: self.body, connectionID: self.connectionID)
            self.body = ByteBuffer()
            self.carryOut(Router.plan(for: request), for: request, context: context)
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
                    target.value.handler.send(response, to: request, context: target.value.context)
                }
            }
        case .pattern(let stream, let declaresLength):
            var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
            if declaresLength {
                headers.add(name: "Content-Length", value: String(stream.remaining))
            }
            self.writeHead(.ok, headers, for: request, context: context)
            self.streaming = (stream, request)
            self.continueStreaming(context: context)
        case .drip(let count, let interval, let initialDelay):
            self.schedule(after: initialDelay, context: context) {
                let headers: HTTPHeaders = ["Content-Type": "application/octet-stream", "Content-Length": String(count)]
                self.writeHead(.ok, headers, for: request, context: context)
                context.flush()
                self.drip(remaining: count, every: interval, for: request, context: context)
            }
        case .truncated(let declaredLength, let sentLength):
            let headers: HTTPHeaders = [
                "Content-Type": "application/octet-stream", "Content-Length": String(declaredLength),
            ]
            self.writeHead(.ok, headers, for: request, context: context)
            let part = HTTPServerResponsePart.body(.byteBuffer(PatternBytes.slice(startingAt: 0, length: sentLength)))
            let channel = context.channel
            context.writeAndFlush(Self.wrapOutboundOut(part)).assumeIsolated().whenComplete { _ in
                channel.close(promise: nil)
            }
        case .silence:
            break
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

    /// Writes the next pattern chunks while the channel accepts them; finishes the response after the last.
    private func continueStreaming(context: ChannelHandlerContext) {
        guard !self.isStreamingLoopRunning else { return }
        self.isStreamingLoopRunning = true
        defer { self.isStreamingLoopRunning = false }

        // Finishing may synchronously deliver the next pipelined request, which can start a new
        // stream; the loop then carries on with that one.
        while context.channel.isWritable, let current = self.streaming {
            var stream = current.stream
            if let chunk = stream.nextChunk() {
                self.streaming = (stream, current.request)
                context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
            } else {
                self.streaming = nil
                self.finish(current.request, context: context)
            }
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
            self.finish(request, context: context)
            return
        }
        self.schedule(after: interval, context: context) {
            context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "*")))), promise: nil)
            self.drip(remaining: remaining - 1, every: interval, for: request, context: context)
        }
    }

    private func writeHead(
        _ status: HTTPResponseStatus,
        _ headers: HTTPHeaders,
        for request: ReceivedRequest,
        context: ChannelHandlerContext
    ) {
        var head = HTTPResponseHead(version: request.head.version, status: status, headers: headers)
        if !request.keepsConnectionAlive {
            head.headers.replaceOrAdd(name: "Connection", value: "close")
        }
        context.write(Self.wrapOutboundOut(.head(head)), promise: nil)
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
