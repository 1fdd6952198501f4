#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension Charset {
    /// `bytes` decoded as `encoding`, or `nil` when they are not valid in it.
    ///
    /// FoundationEssentials decodes the Unicode forms, ASCII, Latin-1 and Mac Roman itself; the
    /// legacy charsets it leaves to full Foundation's converters are decoded here with the C
    /// library's `iconv`, under the names that match what Foundation used (`CP932` for Shift_JIS).
    static func decode(_ bytes: Data, as encoding: String.Encoding) -> String? {
        #if canImport(Glibc)
        if let name = iconvName(encoding) { return iconvDecode(bytes, from: name) }
        #endif
        return String(data: bytes, encoding: encoding)
    }

    #if canImport(Glibc)
    /// `iconv`'s name for an encoding FoundationEssentials does not decode, `nil` for the others.
    private static func iconvName(_ encoding: String.Encoding) -> String? {
        switch encoding {
        case .isoLatin2: "ISO-8859-2"
        case .windowsCP1250: "CP1250"
        case .windowsCP1251: "CP1251"
        case .windowsCP1252: "CP1252"
        case .windowsCP1253: "CP1253"
        case .windowsCP1254: "CP1254"
        case .shiftJIS: "CP932"
        case .japaneseEUC: "EUC-JP"
        case .iso2022JP: "ISO-2022-JP"
        default: nil
        }
    }

    /// `bytes` converted from the charset `iconv` calls `name` to UTF-8; `nil` for an invalid or
    /// incomplete sequence, or a charset this C library cannot convert.
    private static func iconvDecode(_ bytes: Data, from name: String) -> String? {
        let converter = iconv_open("UTF-8", name)
        guard converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = [CChar](repeating: 0, count: bytes.count)
        input.withUnsafeMutableBytes { _ = bytes.copyBytes(to: $0) }
        // Every byte of these charsets becomes at most three bytes of UTF-8.
        var output = [CChar](repeating: 0, count: bytes.count * 3 + 4)
        let written: Int? = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                var inputPointer = inputBuffer.baseAddress
                var inputLeft = inputBuffer.count
                var outputPointer = outputBuffer.baseAddress
                var outputLeft = outputBuffer.count
                guard iconv(converter, &inputPointer, &inputLeft, &outputPointer, &outputLeft) != -1, inputLeft == 0,
                      iconv(converter, nil, nil, &outputPointer, &outputLeft) != -1 else { return nil }
                return outputBuffer.count - outputLeft
            }
        }
        guard let written else { return nil }
        return String(decoding: output[..<written].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    #endif
}
