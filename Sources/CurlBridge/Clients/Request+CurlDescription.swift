#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

extension Request {
    /// A `curl` command line (for a POSIX shell such as bash) that sends this request as a
    /// transport with `configuration` would: same method, URL, headers — the configuration's
    /// defaults and credentials included — and body, with the same content decoding, HTTP
    /// version, timeouts, Unix socket and local binding.
    ///
    /// Secret header values (`Authorization`, `Proxy-Authorization`, `Cookie`, and those added
    /// with `sensitive: true`) and a Digest or NTLM password read `<redacted>` unless
    /// `revealingSecrets` is `true`. A binary body
    /// is written with `printf` escapes through process substitution (`<(…)`, bash). Not
    /// reproduced: the CAs, pins and client certificate of a ``TLSConfiguration`` (they live in
    /// memory) and the exact idle timeout (approximated with `--speed-limit 1 --speed-time`).
    ///
    /// - Parameters:
    ///   - configuration: The transport configuration to describe the request under; defaults
    ///     unless given.
    ///   - revealingSecrets: Whether to print secret header values; `false` by default.
    /// - Returns: The command, or a `#` comment saying why the request cannot be sent.
    public func curlDescription(for configuration: Configuration = Configuration(), revealingSecrets: Bool = false) -> String {
        let prepared: PreparedRequest
        switch self.prepared(with: RequestDefaults(configuration)) {
        case .success(let ready): prepared = ready
        case .failure(let error): return "# not sendable: \(error)"
        }
        var words = ["curl", "--globoff"]  // `[` and `]` in a URL are not ranges to expand
        switch (prepared.method, prepared.body) {
        case (.head, nil): words.append("--head")
        case (.get, nil), (.post, .some), (.post, nil): break
        default: words += ["-X", ShellWord.quoted(prepared.method.rawValue)]
        }
        words.append(ShellWord.quoted(prepared.url))
        let secret = Self.alwaysSensitiveHeaderNames.union(sensitiveHeaderNames)
        for line in prepared.headerLines {
            // As the transport does, Proxy-Authorization goes to a proxy only.
            let option = CurlEasyHandle.isForProxyOnly(line) ? "--proxy-header" : "-H"
            words += [option, ShellWord.quoted(revealingSecrets ? line : Self.redacted(line, secret: secret))]
        }
        switch prepared.body {
        case .bytes(let body)?:
            words += ["--data-binary", ShellWord.data(body)]
        case .multipart(let form)?:
            words += form.parts.flatMap(ShellWord.formPart)
        case .file(let url)?:
            words += ["--data-binary", ShellWord.quoted("@" + url.path)]
        case .stream?:
            words += ["--data-binary", "@-"]  // the stream's bytes would come from standard input
        case nil where prepared.method == .post:
            words += ["--data-binary", "''"]
        case nil:
            break
        }
        if configuration.decodesContentEncoding { words.append("--compressed") }
        if configuration.httpVersion == .http1_1 { words.append("--http1.1") }
        if configuration.tls.disablesCertificateVerification { words.append("--insecure") }
        if configuration.tls.minimumVersion == .tls1_3 { words.append("--tlsv1.3") }
        words += CurlDescriptionWords.authenticationAndConnection(prepared.authentication, configuration, revealingSecrets: revealingSecrets)
        if let connect = prepared.timeLimits.connectMilliseconds { words += ["--connect-timeout", Self.seconds(connect)] }
        if let total = prepared.timeLimits.totalMilliseconds { words += ["--max-time", Self.seconds(total)] }
        if let idle = prepared.timeLimits.idleNanoseconds {
            words += ["--speed-limit", "1", "--speed-time", String((idle + 999_999_999) / 1_000_000_000)]
        }
        return words.joined(separator: " ")
    }

    /// `line` with its value replaced by `<redacted>` when its name is secret.
    private static func redacted(_ line: String, secret: Set<HTTPField.Name>) -> String {
        guard let colon = line.firstIndex(where: { $0 == ":" || $0 == ";" }),
              let name = HTTPField.Name(String(line[..<colon])), secret.contains(name),
              line[colon] == ":", !line[line.index(after: colon)...].isEmpty
        else { return line }
        return "\(line[..<colon]): <redacted>"
    }

    /// Milliseconds as curl's decimal seconds.
    private static func seconds(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? String(milliseconds / 1000) : decimal(milliseconds)
    }

    /// Milliseconds as seconds with three decimals (`1.500`), as `String(format: "%.3f")` wrote them.
    private static func decimal(_ milliseconds: Int) -> String {
        let magnitude = milliseconds.magnitude
        let fraction = String(magnitude % 1000)
        return (milliseconds < 0 ? "-" : "") + "\(magnitude / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// Quoting for a POSIX shell.
enum ShellWord {
    /// `text` in single quotes, with each `'` written as `'\''`.
    static func quoted(_ text: String) -> String {
        "'" + escaped(text, ["'": "'\\''"]) + "'"
    }

    /// A `--data-binary` argument that yields exactly `data`: quoted text when it is UTF-8 without
    /// NUL and does not start with `@` (which names a file to curl), otherwise `@<(printf '\xHH…')`, since an argument cannot carry a NUL byte.
    static func data(_ data: Data) -> String {
        if !data.contains(0), data.first != UInt8(ascii: "@"), let text = String(data: data, encoding: .utf8) {
            return quoted(text)
        }
        return "@<(printf '\(printfEscapes(data))')"
    }

    /// The `curl -F` / `--form-string` arguments for one multipart part.
    static func formPart(_ part: MultipartForm.Part) -> [String] {
        var attributes = ""
        if let filename = part.filename { attributes += ";filename=\(formQuoted(filename))" }
        if let contentType = part.contentType { attributes += ";type=\(contentType)" }
        switch part.content {
        case .text(let text) where attributes.isEmpty:
            return ["--form-string", quoted("\(part.name)=\(text)")]
        case .text(let text):
            return ["-F", quoted("\(part.name)=@") + "<(printf '%s' \(quoted(text)))" + quoted(attributes)]
        case .file(let url):
            return ["-F", quoted("\(part.name)=@\(formQuoted(url.path))\(attributes)")]
        case .data(let data):
            // `<` sends a file's content as a plain field; `@` as a file upload with a filename.
            let source = part.filename == nil ? "<" : "@"
            return ["-F", quoted("\(part.name)=\(source)") + "<(printf '\(printfEscapes(data))')" + quoted(attributes)]
        }
    }

    /// `text` in double quotes for curl's `-F` syntax, `"` and `\\` escaped with a backslash.
    static func formQuoted(_ text: String) -> String {
        "\"" + escaped(text, ["\\": "\\\\", "\"": "\\\""]) + "\""
    }

    /// `text` with each scalar that `replacements` names written as its replacement.
    private static func escaped(_ text: String, _ replacements: [Unicode.Scalar: String]) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if let replacement = replacements[scalar] { result += replacement } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    /// Every byte of `data` as a `printf` `\\xHH` escape.
    static func printfEscapes(_ data: Data) -> String {
        data.map { "\\x" + $0.twoHexDigits }.joined()
    }
}
