#if canImport(Glibc)
import Glibc
#endif

/// Stops the run as a crash libFuzzer records (the input is saved as `crash-…`) when an invariant
/// does not hold.
public func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    let text = "INVARIANT VIOLATED (\(file):\(line)): \(message())\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    abort()
}

extension String {
    /// Whether any byte is CR, LF or NUL.
    public var hasLineBreakingByte: Bool {
        utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// Whether this is an RFC 9110 token (a method or a field name).
    public var isHTTPToken: Bool {
        !isEmpty && utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}
