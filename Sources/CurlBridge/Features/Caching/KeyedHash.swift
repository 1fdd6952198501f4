/// HMAC-SHA256 (RFC 2104) under a cache's secret key: what a cache partitions, names and seals
/// its entries with, so that a stored digest reveals no credential or header value, and nobody
/// without the key can predict an entry's name or forge one.
///
/// Fields are added length-prefixed, so that two different lists of fields never hash alike
/// (`"ab" + "c"` is not `"a" + "bc"`).
struct KeyedHash: Sendable {
    /// The key XOR the inner and the outer pad, 64 bytes each.
    private let innerPad: [UInt8]
    private let outerPad: [UInt8]

    /// The length of a key and of a digest.
    static let length = 32

    /// A keyed hash under `key` (at most 64 bytes: a cache's key is 32 random bytes).
    init(key: [UInt8]) {
        let block = Array(key.prefix(64)) + [UInt8](repeating: 0, count: max(0, 64 - key.count))
        innerPad = block.map { $0 ^ 0x36 }
        outerPad = block.map { $0 ^ 0x5c }
    }

    /// A keyed hash under a new random key, for a cache that lives in memory only.
    static func random() -> KeyedHash {
        KeyedHash(key: randomBytes(length))
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in generator.next() }
    }

    /// The fields `add` gives, as a builder sees them.
    struct Fields {
        fileprivate let hasher: SHA256Hasher?

        /// Adds `bytes`, after their length.
        func add(_ bytes: some Collection<UInt8>) {
            var length = UInt64(bytes.count).littleEndian
            withUnsafeBytes(of: &length) { hasher?.update($0) }
            let hashed: Void? = bytes.withContiguousStorageIfAvailable { hasher?.update(UnsafeRawBufferPointer($0)) }
            if hashed == nil { Array(bytes).withUnsafeBytes { hasher?.update($0) } }
        }

        /// Adds the UTF-8 bytes of `text`, after their length.
        func add(_ text: String) {
            var text = text
            text.withUTF8 { add($0) }
        }
    }

    /// The 32-byte digest of the fields `add` adds.
    ///
    /// Without a libcrypto to hash with (an ``HTTPCache`` is refused then, so only a failed
    /// allocation gets here) the digest is random: it matches nothing, so nothing is served.
    func digest(_ add: (Fields) -> Void) -> [UInt8] {
        guard let inner = SHA256Hasher(), let outer = SHA256Hasher() else { return Self.randomBytes(Self.length) }
        innerPad.withUnsafeBytes { inner.update($0) }
        add(Fields(hasher: inner))
        let innerDigest = inner.finalizeBytes()
        outerPad.withUnsafeBytes { outer.update($0) }
        innerDigest.withUnsafeBytes { outer.update($0) }
        return outer.finalizeBytes()
    }

    /// ``digest(_:)`` in lowercase hex: 64 characters.
    func hex(_ add: (Fields) -> Void) -> String {
        digest(add).map(\.twoHexDigits).joined()
    }
}
