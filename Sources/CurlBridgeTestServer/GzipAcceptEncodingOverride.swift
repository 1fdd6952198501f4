import NIOCore
import NIOHTTP1

/// Makes requests for the `/gzip` route accept gzip, so that the `HTTPResponseCompressor`
/// behind this handler compresses their response even when the client did not ask for it.
///
/// Sits between the HTTP codec and the compressor; other requests pass untouched.
final class GzipAcceptEncodingOverride: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = Self.unwrapInboundIn(data),
            GzipRoute.matches(path: ReceivedRequest.path(ofTarget: head.uri))
        else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "Accept-Encoding", value: "gzip")
        context.fireChannelRead(Self.wrapInboundOut(.head(head)))
    }
}
