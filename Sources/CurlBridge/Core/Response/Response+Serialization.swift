import Foundation

extension Response {
    /// The body parsed as JSON into Foundation objects (`[String: Any]`, `[Any]`, `String`,
    /// `NSNumber`, `NSNull`), for code written against `NSJSONSerialization`. An expected empty
    /// body (see ``allowsEmptyBody``) gives `NSNull`.
    ///
    /// - Throws: ``RequestError`` with code ``RequestError/Code/decodingFailed``.
    public func json() throws(RequestError) -> Any {
        if body.isEmpty, allowsEmptyBody { return NSNull() }
        do {
            return try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            throw RequestError(.decodingFailed, "the body is not JSON: \(error)", url: url, response: self, underlying: error)
        }
    }

    /// The body parsed as a property list (XML or binary), for code written against
    /// `NSPropertyListSerialization`. An expected empty body gives `NSNull`.
    ///
    /// - Throws: ``RequestError`` with code ``RequestError/Code/decodingFailed``.
    public func propertyList() throws(RequestError) -> Any {
        if body.isEmpty, allowsEmptyBody { return NSNull() }
        do {
            return try PropertyListSerialization.propertyList(from: body, format: nil)
        } catch {
            throw RequestError(.decodingFailed, "the body is not a property list: \(error)", url: url, response: self, underlying: error)
        }
    }

    /// The body as text, decoded with the `charset` of its `Content-Type` (UTF-8 when none).
    ///
    /// - Throws: ``RequestError`` with code ``RequestError/Code/decodingFailed`` for a charset this
    ///   platform cannot decode, or bytes that are not valid in it.
    public func text() throws(RequestError) -> String {
        let name = headerFields[.contentType].flatMap(Charset.name(inContentType:)) ?? "utf-8"
        guard let encoding = Charset.encoding(named: name) else {
            throw RequestError(.decodingFailed, "charset \(name.debugDescription) is not supported", url: url, response: self)
        }
        guard let text = String(data: body, encoding: encoding) else {
            throw RequestError(.decodingFailed, "the body is not valid \(name)", url: url, response: self)
        }
        return text
    }
}

/// IANA charset names and the encodings Foundation decodes them with.
enum Charset {
    /// The `charset` parameter of a `Content-Type` value, lowercased and unquoted.
    static func name(inContentType value: String) -> String? {
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "charset" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
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
