import Foundation
import NIOCore

/// The HTTP side of a ``TestProxy``: an `http://` request in absolute form is forwarded to its
/// origin (one request per connection, `Proxy-*` headers removed, `Connection: close`), a
/// `CONNECT host:port` opens a tunnel. Credentials, when the proxy has some, must come as
/// `Proxy-Authorization: Basic …`; otherwise the answer is `407`.
final class HTTPProxyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private enum State {
        /// Collecting the request head.
        case readingHead(ByteBuffer)
        /// Connecting to the target; what the client sends meanwhile waits here.
        case connecting(pending: ByteBuffer)
        /// Tunnelling to the target.
        case relaying(Channel)
        /// Answered or failed; everything else is dropped.
        case done
    }

    /// The largest request head accepted.
    private static let maximumHeadLength = 64 << 10

    private let settings: TestProxy.Settings
    private let overTLS: Bool
    private var state = State.readingHead(ByteBuffer())
    /// The index of this connection's record in the log, once there is one.
    private var record: Int?

    init(settings: TestProxy.Settings, overTLS: Bool) {
        self.settings = settings
        self.overTLS = overTLS
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        switch state {
        case .readingHead(var buffer):
            buffer.writeBuffer(&bytes)
            state = .readingHead(buffer)
            takeHead(from: buffer, context: context)
        case .connecting(var pending):
            pending.writeBuffer(&bytes)
            state = .connecting(pending: pending)
        case .relaying(let upstream):
            if let record { settings.log.count(toTarget: bytes.readableBytes, at: record) }
            upstream.writeAndFlush(bytes, promise: nil)
        case .done:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .relaying(let upstream) = state { upstream.close(promise: nil) }
        state = .done
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    /// Acts on the request head once `buffer` holds all of it.
    private func takeHead(from buffer: ByteBuffer, context: ChannelHandlerContext) {
        let view = buffer.readableBytesView
        guard let end = view.firstRange(of: Array("\r\n\r\n".utf8)) else {
            if buffer.readableBytes > Self.maximumHeadLength { answer(400, "head too large", context: context) }
            return
        }
        let headLength = end.upperBound - view.startIndex
        let head = String(decoding: view[view.startIndex..<end.lowerBound], as: UTF8.self)
        var rest = buffer
        rest.moveReaderIndex(forwardBy: headLength)
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let headers = lines.dropFirst().compactMap { line -> [String]? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return [String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)]
        }
        guard requestLine.count == 3 else {
            answer(400, "malformed request line", context: context)
            return
        }
        let method = requestLine[0], target = requestLine[1]
        let isConnect = method == "CONNECT"
        let (user, accepted) = settings.checkBasic(headers.first { $0[0].lowercased() == "proxy-authorization" }?[1])
        let index = settings.log.append(ProxyRecord(
            kind: isConnect ? .connect : .forward, overTLS: overTLS, target: target, socksAddressType: nil,
            headers: headers, user: user, accepted: accepted, bytesToTarget: 0, bytesFromTarget: 0))
        record = index
        guard accepted else {
            answer(407, "proxy credentials required", context: context,
                   extraHeaders: "Proxy-Authenticate: Basic realm=\"CurlBridge test proxy\"\r\n")
            return
        }
        let destination: (host: String, port: Int, head: ByteBuffer?)?
        if isConnect {
            destination = Self.hostAndPort(target, defaultPort: 443).map { ($0.host, $0.port, nil) }
        } else {
            destination = Self.forwardedRequest(method: method, target: target, version: requestLine[2], headers: headers)
                .map { ($0.host, $0.port, ByteBuffer(string: $0.head)) }
        }
        guard let destination else {
            answer(400, "unsupported target \(target)", context: context)
            return
        }
        state = .connecting(pending: rest)
        let upstreamHost = settings.upstream?.host ?? destination.host
        let upstreamPort = settings.upstream?.port ?? destination.port
        let connected = ProxyRelay.connect(
            host: upstreamHost, port: upstreamPort, on: context.eventLoop, client: context.channel,
            log: settings.log, record: index)
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        connected.assumeIsolated().whenComplete { result in
            let (handler, context) = bound.value
            handler.connected(result, forwardedHead: destination.head, context: context)
        }
    }

    /// Starts relaying once the target is connected, or answers `502`.
    private func connected(_ result: Result<Channel, Error>, forwardedHead: ByteBuffer?, context: ChannelHandlerContext) {
        guard case .connecting(let pending) = state else {
            if case .success(let upstream) = result { upstream.close(promise: nil) }
            return
        }
        switch result {
        case .failure(let error):
            answer(502, "cannot reach the target: \(error)", context: context)
        case .success(let upstream):
            state = .relaying(upstream)
            if let forwardedHead {
                upstream.write(forwardedHead, promise: nil)
            } else {
                context.writeAndFlush(NIOAny(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n")), promise: nil)
            }
            if pending.readableBytes > 0, let record { settings.log.count(toTarget: pending.readableBytes, at: record) }
            upstream.writeAndFlush(pending, promise: nil)
        }
    }

    /// Answers `status` with a short text and closes the connection.
    private func answer(_ status: Int, _ text: String, context: ChannelHandlerContext, extraHeaders: String = "") {
        state = .done
        let body = text + "\n"
        let response = "HTTP/1.1 \(status) \(status == 407 ? "Proxy Authentication Required" : "Proxy Error")\r\n"
            + extraHeaders + "Content-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        let channel = context.channel
        context.writeAndFlush(NIOAny(ByteBuffer(string: response))).assumeIsolated().whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// `host:port` (IPv6 in brackets) split, or `nil`.
    static func hostAndPort(_ authority: String, defaultPort: Int) -> (host: String, port: Int)? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
            let port = rest.isEmpty ? defaultPort : Int(rest.dropFirst())
            return port.map { (host, $0) }
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { return nil }
        guard parts.count == 2 else { return (String(parts[0]), defaultPort) }
        return Int(parts[1]).map { (String(parts[0]), $0) }
    }

    /// The origin and the head to send it for an absolute-form `http://` request: origin-form
    /// target, the client's headers without `Proxy-*`, `Connection` and `Keep-Alive`, and
    /// `Connection: close`.
    static func forwardedRequest(
        method: String, target: String, version: String, headers: [[String]]
    ) -> (host: String, port: Int, head: String)? {
        guard target.lowercased().hasPrefix("http://") else { return nil }
        let afterScheme = target.dropFirst("http://".count)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" }
        var path = String(afterScheme.dropFirst(authority.count))
        if !path.hasPrefix("/") { path = "/" + path }
        guard let (host, port) = hostAndPort(String(authority), defaultPort: 80) else { return nil }
        let dropped: Set<String> = ["proxy-authorization", "proxy-connection", "connection", "keep-alive"]
        let kept = headers.filter { !dropped.contains($0[0].lowercased()) }
        let head = "\(method) \(path) \(version)\r\n" + kept.map { "\($0[0]): \($0[1])\r\n" }.joined()
            + "Connection: close\r\n\r\n"
        return (host, port, head)
    }
}
