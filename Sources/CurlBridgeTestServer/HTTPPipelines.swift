import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

/// Sets up the channel pipelines of accepted HTTP connections so that every request, whatever the
/// protocol, ends in the same handler chain: gzip override → response compressor → ``RequestHandler``.
enum HTTPPipelines {
    /// Maximum concurrent streams advertised on HTTP/2 connections.
    static let maximumConcurrentStreams = 256

    /// TLS, then HTTP/2 or HTTP/1.1 as negotiated by ALPN (HTTP/1.1 without ALPN). Must run on the
    /// channel's event loop. `handlersAfterTLS` go right after the TLS handler (they see
    /// decrypted bytes and TLS events).
    static func configureSecure(
        _ channel: Channel,
        tlsContext: NIOSSLContext,
        connectionID: Int,
        routes: RegisteredRoutes,
        handlersAfterTLS: [any ChannelHandler] = []
    ) throws -> EventLoopFuture<Void> {
        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tlsContext))
        for handler in handlersAfterTLS {
            try channel.pipeline.syncOperations.addHandler(handler)
        }
        return channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try configureHTTP2(channel, connectionID: connectionID, routes: routes)
                }
            },
            http1ChannelConfigurator: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try configureHTTP1(channel, connectionID: connectionID, routes: routes)
                }
            }
        )
    }

    /// HTTP/1.1 with keep-alive and pipelining, on a plain TCP channel or after TLS. Must run on the
    /// channel's event loop.
    static func configureHTTP1(_ channel: Channel, connectionID: Int, routes: RegisteredRoutes) throws {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
        try addRequestHandlers(to: pipeline, connectionID: connectionID, routes: routes)
    }

    private static func configureHTTP2(_ channel: Channel, connectionID: Int, routes: RegisteredRoutes) throws {
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server,
            connectionConfiguration: http2ConnectionConfiguration,
            streamConfiguration: http2StreamConfiguration
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                let pipeline = stream.pipeline.syncOperations
                try pipeline.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                try addRequestHandlers(to: pipeline, connectionID: connectionID, routes: routes)
            }
        }
    }

    private static func addRequestHandlers(
        to pipeline: ChannelPipeline.SynchronousOperations,
        connectionID: Int,
        routes: RegisteredRoutes
    ) throws {
        try pipeline.addHandler(GzipAcceptEncodingOverride())
        try pipeline.addHandler(GzipRoute.makeCompressor())
        try pipeline.addHandler(RequestHandler(connectionID: connectionID, routes: routes))
    }

    /// HTTP/2 connection settings: many concurrent streams, large windows, and abuse limits raised
    /// far enough that tests cancelling many streams are not mistaken for an attack.
    private static let http2ConnectionConfiguration: NIOHTTP2Handler.ConnectionConfiguration = {
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings =
            nioDefaultSettings.filter { $0.parameter != .maxConcurrentStreams }
            + [HTTP2Setting(parameter: .maxConcurrentStreams, value: maximumConcurrentStreams)]
        configuration.targetWindowSize = 16 << 20
        configuration.maximumConnectionGlitches = 100_000
        return configuration
    }()

    /// HTTP/2 stream settings: a 1 MiB receive window and raised reset/error rate limits.
    private static let http2StreamConfiguration: NIOHTTP2Handler.StreamConfiguration = {
        var configuration = NIOHTTP2Handler.StreamConfiguration()
        configuration.targetWindowSize = 1 << 20
        configuration.streamResetFrameRateLimit.maximumCount = 100_000
        configuration.streamErrorRateLimit.maximumCount = 100_000
        return configuration
    }()
}
