import CurlBridge

extension CurlBridgeClientTransport {
    /// What a ``CurlBridgeClientTransport`` adds to its client's configuration.
    public struct Configuration: Sendable {
        /// How much of a response body may wait unread before the transfer pauses;
        /// `BufferLimits` (1 MiB, resuming at 256 KiB) by default.
        public var bufferLimits: BufferLimits
        /// Adjusts each request before it is sent, given the operation's `operationId`: per-operation
        /// timeouts, retry policy, credential or logger, which OpenAPI middleware cannot express.
        /// `nil` (no adjustment) by default.
        ///
        /// ```swift
        /// CurlBridgeClientTransport.Configuration { request, operationID in
        ///     operationID == "uploadVideo" ? request.timeout(idle: .seconds(300)) : request
        /// }
        /// ```
        public var adaptRequest: (@Sendable (_ request: Request, _ operationID: String) -> Request)?

        /// Creates a configuration; every parameter has the default documented on its property.
        public init(
            bufferLimits: BufferLimits = BufferLimits(),
            adaptRequest: (@Sendable (_ request: Request, _ operationID: String) -> Request)? = nil
        ) {
            self.bufferLimits = bufferLimits
            self.adaptRequest = adaptRequest
        }
    }
}
