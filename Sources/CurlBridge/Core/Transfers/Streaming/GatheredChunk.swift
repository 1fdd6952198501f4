/// Body bytes gathered in one pooled buffer (``ChunkPool``) until the consumer takes them.
///
/// curl hands a body over in pieces of at most 16 KiB (`CURL_MAX_WRITE_SIZE`), however much it
/// read from the socket at once: 65,536 pieces per gigabyte. Pieces that arrive while the
/// consumer has not yet taken the previous ones join that chunk, so the consumer takes, and is
/// woken for, as much as arrived meanwhile — one hand-off per burst rather than per piece.
///
/// Not `Sendable`: the buffer belongs to the ``ResponseBodyBuffer`` entry holding this value, which
/// lives inside that buffer's lock and is changed only there, until the consumer takes it as a
/// `Data`.
struct GatheredChunk {
    /// The smallest buffer a chunk starts with.
    static let minimumCapacity = 16 << 10
    /// The largest buffer a chunk grows to, when pieces keep coming faster than they are taken.
    static let maximumCapacity = 256 << 10

    /// Where the bytes are.
    let buffer: UnsafeMutableRawPointer
    /// The buffer's size, a power of two.
    let capacity: Int
    /// The bytes gathered so far.
    private(set) var count = 0

    /// A chunk in `pool`'s buffer of `capacity` bytes.
    init(capacity: Int, from pool: ChunkPool) {
        self.capacity = capacity
        buffer = pool.buffer(capacity: capacity)
    }

    /// The capacity for a chunk that starts with a piece of `pieceSize` bytes, after one of
    /// `previousCapacity`: double the previous (a consumer that falls behind gets bigger chunks),
    /// within the bounds above, and never smaller than the piece.
    static func capacity(forPiece pieceSize: Int, after previousCapacity: Int) -> Int {
        let wanted = max(pieceSize, min(maximumCapacity, max(minimumCapacity, previousCapacity * 2)))
        return 1 << (Int.bitWidth - (wanted - 1).leadingZeroBitCount)
    }

    /// Whether `pieceSize` more bytes fit.
    func hasRoom(for pieceSize: Int) -> Bool {
        capacity - count >= pieceSize
    }

    /// Copies `bytes` after the bytes gathered.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        (buffer + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }
}
