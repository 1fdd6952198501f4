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
    /// The pattern body being written; resumed on writability changes.
    private var streaming: Streaming?
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
        case .pattern(let response):
            let headWritten = self.writeHead(response.status, response.headers, for: request, context: context)
            self.streaming = Streaming(
                stream: response.stream,
                closesAfterBody: response.closesAfterBody,
                request: request,
                latestWrite: headWritten
            )
            self.continueStreaming(context: context)
        case .drip(let count, let interval, let initialDelay):
            self.schedule(after: initialDelay, context: context) {
                let headers: HTTPHeaders = ["Content-Type": "application/octet-stream", "Content-Length": String(count)]
                self.writeHead(.ok, headers, for: request, context: context)
                context.flush()
                self.drip(remaining: count, every: interval, for: request, context: context)
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

    /// Writes the next pattern chunks while the channel accepts them; ends the body after the last.
    private func continueStreaming(context: ChannelHandlerContext) {
        guard !self.isStreamingLoopRunning else { return }
        self.isStreamingLoopRunning = true
        defer { self.isStreamingLoopRunning = false }

        // Finishing may synchronously deliver the next pipelined request, which can start a new
        // stream; the loop then carries on with that one.
        while context.channel.isWritable, var current = self.streaming {
            if let chunk = current.stream.nextChunk() {
                current.latestWrite = context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(chunk))))
                self.streaming = current
            } else {
                self.streaming = nil
                self.endBody(of: current, context: context)
            }
        }
    }

    /// Ends a pattern body whose bytes are all written: with the response's end, or for a cut body
    /// by closing the channel (on HTTP/2 a stream: resetting it) once the last byte is out.
    private func endBody(of streaming: Streaming, context: ChannelHandlerContext) {
        guard streaming.closesAfterBody else {
            self.finish(streaming.request, context: context)
            return
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
    /// Whether the channel is closed after the last byte instead of ending the response.
    let closesAfterBody: Bool
    /// The request being answered.
    let request: ReceivedRequest
    /// The completion of the latest write of this response, which a cut body waits for before
    /// closing, so that every byte it meant to send is out.
    var latestWrite: EventLoopFuture<Void>
}
