#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Response {
    /// The body as text, decoded with the `charset` of its `Content-Type` (UTF-8 when none).
    ///
    /// - Throws: ``RequestError`` with code ``RequestError/Code/decodingFailed`` for a charset this
    ///   platform cannot decode, or bytes that are not valid in it.
    public func text() throws(RequestError) -> String {
        let name = headerFields[.contentType].flatMap(Charset.name(inContentType:)) ?? "utf-8"
        guard let encoding = Charset.encoding(named: name) else {
            throw RequestError(.decodingFailed, "charset \(name.debugDescription) is not supported", url: url, response: self)
        }
        guard let text = Charset.decode(body, as: encoding) else {
            throw RequestError(.decodingFailed, "the body is not valid \(name)", url: url, response: self)
        }
        return text
    }
}

/// IANA charset names and the encodings they decode with (``decode(_:as:)``).
enum Charset {
    /// The `charset` parameter of a `Content-Type` value, lowercased and unquoted.
    static func name(inContentType value: String) -> String? {
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
            if pair.count == 2, pair[0].lowercased() == "charset" {
                return pair[1].trimming { $0 == "\"" }.lowercased()
            }
        }
        return nil
    }

    /// The encoding for an IANA name (and its common aliases), or `nil`.
    static func encoding(named name: String) -> String.Encoding? {
        switch name.lowercased() {
        case "utf-8", "utf8": .utf8
        case "us-ascii", "ascii": .ascii
        case "iso-8859-1", "latin1", "iso_8859-1", "l1": .isoLatin1
        case "iso-8859-2", "latin2": .isoLatin2
        case "windows-1250": .windowsCP1250
        case "windows-1251": .windowsCP1251
        case "windows-1252", "cp1252": .windowsCP1252
        case "windows-1253": .windowsCP1253
        case "windows-1254": .windowsCP1254
        case "utf-16": .utf16
        case "utf-16be": .utf16BigEndian
        case "utf-16le": .utf16LittleEndian
        case "utf-32": .utf32
        case "utf-32be": .utf32BigEndian
        case "utf-32le": .utf32LittleEndian
        case "shift_jis", "shift-jis", "sjis": .shiftJIS
        case "euc-jp": .japaneseEUC
        case "iso-2022-jp": .iso2022JP
        case "macintosh", "x-mac-roman": .macOSRoman
        default: nil
        }
    }
}
