/// The checks every request through CurlBridge makes whatever its configuration, open to the
/// benchmarks' kept floor (`Benchmarks/Sources/BenchSwiftFloor`, styles `kept-*`): a Swift client
/// over libcurl that does nothing but the floor's work and these, so that what no design of
/// CurlBridge can skip is measured with CurlBridge's own code rather than estimated. Not API: an
/// SPI that nothing in the library calls.
@_spi(KeptWork)
public enum KeptWork {
    /// Whether `url` is a plain absolute `http` or `https` URL, the check each request's URL
    /// passes before curl sees it.
    public static func isPlainURL(_ url: String) -> Bool {
        PlainAbsoluteURL(url) != nil
    }

    /// Whether a blocking call from this thread would be refused by a default
    /// ``BlockingClient/Policy`` (the main thread or queue, a transport's queue, inside a task).
    public static func refusesBlockingCall() -> Bool {
        BlockingGuard.refusal(BlockingClient.Policy()) != nil
    }

    /// The response head's guard (``ResponseHeadGuard``).
    public struct HeadGuard: Sendable {
        private var headGuard: ResponseHeadGuard

        /// A guard for a new transfer that accepts up to `limit` header bytes
        /// (``Configuration/maximumHeaderSize``).
        public init(limit: Int) {
            headGuard = ResponseHeadGuard(limit: limit)
        }

        /// Inspects one header line as curl's header callback hands it over, line ending
        /// included; `false` when the response must be refused.
        public mutating func accepts(_ line: UnsafeRawBufferPointer) -> Bool {
            if case .reject = headGuard.inspect(line) { return false }
            return true
        }
    }
}
