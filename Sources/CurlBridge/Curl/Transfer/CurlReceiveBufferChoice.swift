/// The receive buffer (`CURLOPT_BUFFERSIZE`) each transfer gets: the configured size for a body
/// streamed to a consumer or written to a file; for a body collected in memory, at most
/// ``collectingLimit`` while the transport's collected bodies are that small and fewer than
/// ``smallBuffersInFlight`` transfers are in flight, and the configured size otherwise.
///
/// libcurl 7.88 `malloc`s the buffer for every transfer, before the request is sent, and frees it
/// when the transfer ends, so the size must be chosen before the body's length is known:
/// the last collected body stands for the next. Measured on raw libcurl collecting bodies, 64 in
/// flight (Benchmarks/INSTRUCTIONS.md): for bodies up to 64 KiB, a 64 KiB buffer faults 0.7
/// pages in per response against 3 to 16 with 512 KiB, and takes 20–50% less CPU; from 128 KiB
/// up it is the other way round (1 MiB bodies: 257 faults and 1.6 ms of CPU against 171 and
/// 1.0 ms), as glibc's dynamic `mmap` threshold follows the largest block freed.
///
/// Small buffers come from the heap, among the transfers' other blocks. With 1,000 transfers in
/// flight they left a peak 5–10 MiB higher than 512 KiB ones (which glibc maps apart while they
/// are above its `mmap` threshold), so beyond ``smallBuffersInFlight`` transfers a collected body gets
/// the configured size: the heap holds at most that many small buffers.
///
/// Confined to the loop, with the engine that owns it.
struct CurlReceiveBufferChoice {
    /// The largest buffer a collected body gets while collected bodies are small: 64 KiB.
    static let collectingLimit = 64 << 10
    /// The transfers in flight beyond which a collected body gets the configured size again.
    static let smallBuffersInFlight = 64

    /// ``Configuration/receiveBufferSize``.
    let configured: Int
    /// What a collected body gets while collected bodies are small.
    private let collecting: Int
    /// Whether the last collected body was larger than ``collectingLimit``.
    private var lastCollectedBodyWasLarge = false

    /// The choice for a transport configured with a `configured`-byte receive buffer.
    init(configured: Int) {
        self.configured = configured
        collecting = min(configured, Self.collectingLimit)
    }

    /// The buffer for the next transfer, which holds its body in memory or not, made while
    /// `inFlight` other transfers are in flight.
    func size(collectsBody: Bool, inFlight: Int) -> Int {
        collectsBody && !lastCollectedBodyWasLarge && inFlight < Self.smallBuffersInFlight ? collecting : configured
    }

    /// A transfer that held its body in memory ended, having received `bytes` of it.
    mutating func collectedBodyEnded(receiving bytes: Int64) {
        lastCollectedBodyWasLarge = bytes > Self.collectingLimit
    }
}
