import NIOCore

/// HPACK header blocks (RFC 7541) the simplest way: every field a literal without indexing with
/// a literal name, no Huffman coding, so the server needs no dynamic table and a block can be
/// cut into frames anywhere.
enum H2HeaderBlock {
    /// The block for `fields`, in order (pseudo-headers such as `:status` first).
    static func encode(_ fields: [(name: String, value: String)]) -> ByteBuffer {
        var block = ByteBuffer()
        for field in fields { append(field.name, field.value, to: &block) }
        return block
    }

    /// Appends one field: `0000 0000`, then the name and the value, each a length (7-bit prefix
    /// integer, Huffman bit clear) and its bytes.
    static func append(_ name: String, _ value: String, to block: inout ByteBuffer) {
        block.writeInteger(UInt8(0))
        appendString(name, to: &block)
        appendString(value, to: &block)
    }

    private static func appendString(_ string: String, to block: inout ByteBuffer) {
        let bytes = Array(string.utf8)
        appendInteger(bytes.count, prefixBits: 7, to: &block)
        block.writeBytes(bytes)
    }

    /// RFC 7541 §5.1 integer encoding with an `prefixBits`-bit prefix (the bits above it zero).
    static func appendInteger(_ value: Int, prefixBits: Int, to block: inout ByteBuffer) {
        let limit = (1 << prefixBits) - 1
        guard value >= limit else {
            block.writeInteger(UInt8(value))
            return
        }
        block.writeInteger(UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            block.writeInteger(UInt8(rest % 128 + 128))
            rest /= 128
        }
        block.writeInteger(UInt8(rest))
    }
}
