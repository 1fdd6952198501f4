import NIOCore

/// The SOCKS5 side of a ``TestProxy`` (RFC 1928, with RFC 1929 username/password authentication
/// when the proxy has credentials, no authentication otherwise): `CONNECT` only, to an IPv4,
/// IPv6 or domain-name target.
final class SOCKS5Handler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private enum State {
        /// Waiting for the client's greeting (version and methods).
        case greeting
        /// Waiting for username/password.
        case authenticating
        /// Waiting for the request.
        case request(user: String?)
        /// Connecting to the target; what the client sends meanwhile waits in `buffer`.
        case connecting
        /// Tunnelling to the target.
        case relaying(Channel)
        /// Refused or failed.
        case done
    }

    private let settings: TestProxy.Settings
    private var state = State.greeting
    /// What arrived and is not handled yet.
    private var buffer = ByteBuffer()
    private var record: Int?

    init(settings: TestProxy.Settings) {
        self.settings = settings
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if case .relaying(let upstream) = state {
            if let record { settings.log.count(toTarget: bytes.readableBytes, at: record) }
            upstream.writeAndFlush(bytes, promise: nil)
            return
        }
        buffer.writeBuffer(&bytes)
        while step(context: context) {}
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .relaying(let upstream) = state { upstream.close(promise: nil) }
        state = .done
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    /// Handles one message if it has arrived whole; `true` when another may follow.
    private func step(context: ChannelHandlerContext) -> Bool {
        let bytes = Array(buffer.readableBytesView)
        switch state {
        case .greeting:
            guard bytes.count >= 2, bytes.count >= 2 + Int(bytes[1]) else { return false }
            buffer.moveReaderIndex(forwardBy: 2 + Int(bytes[1]))
            let methods = bytes[2..<(2 + Int(bytes[1]))]
            let wanted: UInt8 = settings.credentials == nil ? 0x00 : 0x02
            guard bytes[0] == 5, methods.contains(wanted) else {
                refuse([5, 0xFF], context: context)
                return false
            }
            write([5, wanted], context: context)
            state = wanted == 0x02 ? .authenticating : .request(user: nil)
            return true
        case .authenticating:
            guard bytes.count >= 2 else { return false }
            let userLength = Int(bytes[1])
            guard bytes.count >= 3 + userLength else { return false }
            let passwordLength = Int(bytes[2 + userLength])
            let total = 3 + userLength + passwordLength
            guard bytes.count >= total else { return false }
            buffer.moveReaderIndex(forwardBy: total)
            let user = String(decoding: bytes[2..<(2 + userLength)], as: UTF8.self)
            let password = String(decoding: bytes[(3 + userLength)..<total], as: UTF8.self)
            guard settings.credentials?.user == user, settings.credentials?.password == password else {
                _ = settings.log.append(ProxyRecord(
                    kind: .socks5, overTLS: false, target: "", socksAddressType: nil, headers: [], user: user,
                    accepted: false, bytesToTarget: 0, bytesFromTarget: 0))
                refuse([1, 1], context: context)
                return false
            }
            write([1, 0], context: context)
            state = .request(user: user)
            return true
        case .request(let user):
            return takeRequest(bytes, user: user, context: context)
        case .connecting, .relaying, .done:
            return false
        }
    }

    /// Handles the `CONNECT` request once it has arrived whole.
    private func takeRequest(_ bytes: [UInt8], user: String?, context: ChannelHandlerContext) -> Bool {
        guard bytes.count >= 5 else { return false }
        let addressLength: Int, addressType: String
        switch bytes[3] {
        case 1: (addressLength, addressType) = (4, "ipv4")
        case 4: (addressLength, addressType) = (16, "ipv6")
        case 3: (addressLength, addressType) = (1 + Int(bytes[4]), "domain")
        default:
            refuse([5, 8, 0, 1, 0, 0, 0, 0, 0, 0], context: context)  // address type not supported
            return false
        }
        let total = 4 + addressLength + 2
        guard bytes.count >= total else { return false }
        buffer.moveReaderIndex(forwardBy: total)
        let address = bytes[4..<(4 + addressLength)]
        let host: String
        switch addressType {
        case "ipv4": host = address.map(String.init).joined(separator: ".")
        case "ipv6": host = stride(from: 0, to: 16, by: 2).map { String(UInt16(address[address.startIndex + $0]) << 8 | UInt16(address[address.startIndex + $0 + 1]), radix: 16) }.joined(separator: ":")
        default: host = String(decoding: address.dropFirst(), as: UTF8.self)
        }
        let port = Int(bytes[total - 2]) << 8 | Int(bytes[total - 1])
        let index = settings.log.append(ProxyRecord(
            kind: .socks5, overTLS: false, target: addressType == "ipv6" ? "[\(host)]:\(port)" : "\(host):\(port)",
            socksAddressType: addressType, headers: [], user: user, accepted: true, bytesToTarget: 0, bytesFromTarget: 0))
        record = index
        guard bytes[0] == 5, bytes[1] == 1 else {
            refuse([5, 7, 0, 1, 0, 0, 0, 0, 0, 0], context: context)  // command not supported
            return false
        }
        state = .connecting
        let connected = ProxyRelay.connect(
            host: settings.upstream?.host ?? host, port: settings.upstream?.port ?? port, on: context.eventLoop,
            client: context.channel, log: settings.log, record: index)
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        connected.assumeIsolated().whenComplete { result in
            let (handler, context) = bound.value
            handler.connected(result, context: context)
        }
        return false
    }

    private func connected(_ result: Result<Channel, Error>, context: ChannelHandlerContext) {
        guard case .connecting = state else {
            if case .success(let upstream) = result { upstream.close(promise: nil) }
            return
        }
        switch result {
        case .failure:
            refuse([5, 5, 0, 1, 0, 0, 0, 0, 0, 0], context: context)  // connection refused
        case .success(let upstream):
            state = .relaying(upstream)
            write([5, 0, 0, 1, 0, 0, 0, 0, 0, 0], context: context)
            if buffer.readableBytes > 0 {
                if let record { settings.log.count(toTarget: buffer.readableBytes, at: record) }
                upstream.writeAndFlush(buffer, promise: nil)
                buffer.clear()
            }
        }
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        context.writeAndFlush(NIOAny(ByteBuffer(bytes: bytes)), promise: nil)
    }

    /// Sends `bytes` and closes the connection.
    private func refuse(_ bytes: [UInt8], context: ChannelHandlerContext) {
        state = .done
        let channel = context.channel
        context.writeAndFlush(NIOAny(ByteBuffer(bytes: bytes))).assumeIsolated().whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
