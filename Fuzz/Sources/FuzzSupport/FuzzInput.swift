/// The fuzzer's bytes read as a sequence of fields separated by `0xFF` (a byte that never occurs
/// in UTF-8, so seeds stay readable text and any field can hold CR, LF or NUL). A missing field
/// reads as empty.
public struct FuzzInput {
    private var fields: [ArraySlice<UInt8>]
    private var position = 0

    /// The input of one run.
    public init(_ bytes: UnsafeRawBufferPointer) {
        fields = Array(bytes).split(separator: 0xFF, omittingEmptySubsequences: false)
    }

    /// Whether every field has been read.
    public var isAtEnd: Bool { position >= fields.count }

    /// The next field's bytes.
    public mutating func bytes() -> [UInt8] {
        defer { position += 1 }
        return position < fields.count ? Array(fields[position]) : []
    }

    /// The next field as text (invalid UTF-8 repaired, as `String(decoding:)` does).
    public mutating func string() -> String {
        String(decoding: bytes(), as: UTF8.self)
    }

    /// The next field as text, or `nil` when the field is the single byte `0xFE`.
    public mutating func optionalString() -> String? {
        let field = bytes()
        return field == [0xFE] ? nil : String(decoding: field, as: UTF8.self)
    }

    /// The next field as a number in `range`: its decimal value when it is one, else the sum of
    /// its bytes, wrapped into the range (a value already in the range is itself).
    public mutating func number(in range: ClosedRange<Int>) -> Int {
        let field = bytes()
        let raw = Int(String(decoding: field, as: UTF8.self)) ?? field.reduce(0) { $0 &+ Int($1) }
        let width = range.upperBound - range.lowerBound + 1
        return range.lowerBound + ((raw &- range.lowerBound) % width + width) % width
    }

    /// The next field as a `Double`: its decimal (or `nan`, `inf`) value when it is one, else its
    /// first eight bytes as the bits of one (little-endian, missing bytes zero), so any `Double`,
    /// NaN and the infinities included, can be written.
    public mutating func double() -> Double {
        let field = bytes()
        if let value = Double(String(decoding: field, as: UTF8.self)) { return value }
        let bits = field.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        return Double(bitPattern: bits)
    }

    /// The next field as a choice among `options`.
    public mutating func pick<Option>(_ options: [Option]) -> Option {
        options[number(in: 0...(options.count - 1))]
    }

    /// The next field as a flag: `1` (or any odd number) is `true`.
    public mutating func flag() -> Bool {
        number(in: 0...1) == 1
    }
}
