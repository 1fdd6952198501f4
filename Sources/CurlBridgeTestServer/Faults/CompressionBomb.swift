/// Bodies that decode to at least 200 MiB of zeros from a few hundred KB or less, made once per
/// process in memory by the hand-made encoders (no compression library involved).
public enum CompressionBomb: String, CaseIterable, Sendable {
    /// `Content-Encoding: gzip`.
    case gzip
    /// `Content-Encoding: br`.
    case brotli = "br"
    /// `Content-Encoding: zstd`.
    case zstd

    /// The `Content-Encoding` token.
    public var contentEncoding: String { rawValue }

    /// The encoded body.
    public var encoded: [UInt8] {
        switch self {
        case .gzip: Self.gzipBytes
        case .brotli: Self.brotliBytes
        case .zstd: Self.zstdBytes
        }
    }

    /// The number of bytes the body decodes to.
    public var decodedSize: Int {
        switch self {
        case .gzip: 1 + 258 * Self.gzipMatches
        case .brotli: Self.brotliMetaBlocks * BrotliZeros.metaBlockSize
        case .zstd: Self.zstdBlocks * ZstdZeros.blockSize
        }
    }

    private static let gzipMatches = (200 << 20) / 258 + 1
    private static let brotliMetaBlocks = 13
    private static let zstdBlocks = (200 << 20) / ZstdZeros.blockSize
    private static let gzipBytes = GzipMember.zeros(matches: gzipMatches)
    private static let brotliBytes = BrotliZeros.stream(metaBlocks: brotliMetaBlocks)
    private static let zstdBytes = ZstdZeros.frame(blocks: zstdBlocks)
}
