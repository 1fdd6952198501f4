extension UInt8 {
    /// The byte as two lowercase hexadecimal digits (`0a`, `ff`).
    var twoHexDigits: String {
        let hex = String(self, radix: 16)
        return self < 0x10 ? "0" + hex : hex
    }
}
