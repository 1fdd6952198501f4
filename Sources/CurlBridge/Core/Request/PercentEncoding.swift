/// RFC 3986 percent-encoding of query and form components.
enum PercentEncoding {
    /// `s` with every byte outside RFC 3986's unreserved set (`A–Z a–z 0–9 - . _ ~`) percent-encoded.
    static func encoded(_ string: String) -> String {
        encode(string, spaceAsPlus: false)
    }

    /// Like ``encoded(_:)`` but spaces become `+`, as in `application/x-www-form-urlencoded`.
    static func formEncoded(_ string: String) -> String {
        encode(string, spaceAsPlus: true)
    }

    private static func encode(_ string: String, spaceAsPlus: Bool) -> String {
        var output = [UInt8]()
        output.reserveCapacity(string.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                output.append(UInt8(ascii: "+"))
            default:
                output.append(UInt8(ascii: "%"))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
