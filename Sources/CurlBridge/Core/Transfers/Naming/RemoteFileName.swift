#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The name a download of a URL gets in a directory, chosen so that no URL can name a file
/// outside the directory or a hidden one in it: curl's `--remote-name` (`-O`), with the checks
/// curl leaves to its user.
///
/// The name is the last segment of the URL's path exactly as the URL spells it. Its
/// percent-escapes are kept, never decoded, and its query and fragment are left out. Decoding is
/// what `URL.lastPathComponent` does, and so does a destination built with
/// `appendingPathComponent(url.lastPathComponent)`: `https://host/%2e%2e%2F%2e%2e%2Fx` becomes
/// `../../x`, two directories up. Kept encoded, `%2e%2e%2F%2e%2e%2Fx` is one harmless file name.
/// A name that starts with a dot is refused, so `..%2F..%2Fx` is too. Any URL list you did not
/// write yourself can carry such URLs: a feed, a playlist, a server's answer.
///
/// | URL | name |
/// |---|---|
/// | `https://example.com/episodes/42.mp3?token=…` | `42.mp3` |
/// | `https://example.com/show%20notes.txt` | `show%20notes.txt` |
/// | `https://example.com/%2e%2e%2F%2e%2e%2Fx` | `%2e%2e%2F%2e%2e%2Fx` |
/// | `https://example.com/feed/`, `https://example.com` | `index.html` (``directoryIndex``) |
/// | `https://example.com/a/..`, `…/.`, `…/.bashrc`, `…/..%2F..%2Fx` | refused |
///
/// ```swift
/// for url in episodeURLs {
///     try queue.enqueue(.get(url), to: RemoteFileName(url).file(in: episodesDirectory))
/// }
/// ```
///
/// Two URLs can have the same name (`…/a/index.html` and `…/b/index.html`): telling them apart is
/// the caller's choice.
public struct RemoteFileName: Sendable, Hashable, CustomStringConvertible {
    /// The file name: never empty, `.` or `..`, never starting with `.`, without `/`, NUL or any
    /// other control or invisible formatting character, and at most ``maximumLength`` bytes of UTF-8.
    public let name: String

    /// The name of a URL whose path is empty or ends in `/`, a directory's index: `index.html`,
    /// the name wget gives it.
    public static let directoryIndex = "index.html"

    /// The longest name accepted, in bytes of UTF-8: 200. File systems take 255 (`NAME_MAX`). The
    /// other 55 bytes leave room for the partial file a download writes first
    /// (`.NAME.TOKEN.curlbridge-partial`) and for a suffix a caller adds to tell equal names apart.
    public static let maximumLength = 200

    /// The name of `url`'s last path segment.
    ///
    /// - Parameter url: An absolute URL, or a relative one: the last segment of its path counts.
    /// - Throws: ``RequestError/Code/invalidURL`` when `url` cannot be parsed;
    ///   ``RequestError/Code/fileIO`` when its last segment cannot name a file: `.` or `..`, a
    ///   hidden name (a leading `.`), one with a control or invisible formatting character, or one
    ///   longer than ``maximumLength``. `fileIO` because the URL itself is fine to request: what
    ///   fails is making a file of it, which curl's `-O` reports as a write error (exit 23).
    public init(_ url: String) throws(RequestError) {
        switch Self.decide(url) {
        case .name(let name):
            self.name = name
        case .refused(.notAURL):
            throw RequestError(.invalidURL, "\(url.debugDescription) is not a URL: it cannot name a file", url: url)
        case .refused(let refusal):
            throw RequestError(.fileIO, "cannot name a file after the URL: \(refusal.reason)", url: url)
        }
    }

    /// The file of this name in `directory`: the directory standardized (its `.` and `..` segments
    /// removed; symbolic links are not resolved), then the name.
    ///
    /// - Parameter directory: A file URL of the directory; it need not exist yet.
    /// - Throws: ``RequestError/Code/fileIO`` when `directory` is not a file URL. (Also when the
    ///   file would not be directly inside `directory`, which the rules of ``name`` rule out: a
    ///   second check, kept in case they ever change.)
    public func file(in directory: URL) throws(RequestError) -> URL {
        guard directory.isFileURL else {
            throw RequestError(.fileIO, "the directory \(directory.absoluteString.debugDescription) is not a file URL")
        }
        guard let file = Self.file(named: name, in: directory) else {
            throw RequestError(.fileIO, "the file name \(name.debugDescription) would leave the directory \(directory.path)")
        }
        return file
    }

    /// The name.
    public var description: String { name }
}

// MARK: The decision

extension RemoteFileName {
    /// What a URL's last segment makes: a name, or why not. A pure value, tested case by case
    /// (`RemoteFileNameTests`).
    enum Decision: Equatable {
        case name(String)
        case refused(Refusal)
    }

    /// Why a URL cannot name a file.
    enum Refusal: Equatable {
        /// The URL cannot be parsed.
        case notAURL
        /// An empty name (a URL's segment is never one: an empty one is ``RemoteFileName/directoryIndex``).
        case empty
        /// `.` or `..`: a directory, not a file.
        case dotSegment(String)
        /// A leading `.`: a hidden file (`.bashrc`, `.ssh`), easy to miss and often read by other programs.
        case hidden(String)
        /// A `/`, which would make a path (a URL's segment never holds one: a name from elsewhere might).
        case separator(String)
        /// NUL or another control character, or an invisible formatting one (a bidirectional override
        /// that shows `exe.txt` as `txt.exe`).
        case invisibleCharacter(String)
        /// More than ``RemoteFileName/maximumLength`` bytes of UTF-8.
        case tooLong(bytes: Int)

        /// The reason, as an error message says it.
        var reason: String {
            switch self {
            case .notAURL: "it is not a URL"
            case .empty: "the name is empty"
            case .dotSegment(let name): "its last path segment \(name.debugDescription) names a directory"
            case .hidden(let name): "its last path segment \(name.debugDescription) starts with a dot (a hidden file)"
            case .separator(let name): "the name \(name.debugDescription) holds a /"
            case .invisibleCharacter(let name): "its last path segment \(name.debugDescription) holds a control character"
            case .tooLong(let bytes): "its last path segment is \(bytes) bytes long; a file name here may have \(RemoteFileName.maximumLength)"
            }
        }
    }

    /// The name for `url`: its path's last segment as the URL spells it, ``directoryIndex`` when
    /// that is empty, or why it cannot be one.
    static func decide(_ url: String) -> Decision {
        guard !url.isEmpty, let components = URLComponents(string: url) else { return .refused(.notAURL) }
        let segment = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard !segment.isEmpty else { return .name(directoryIndex) }
        let name = String(segment)
        return refusal(of: name).map(Decision.refused) ?? .name(name)
    }

    /// Why `name` cannot be a file's name, or `nil` when it can.
    static func refusal(of name: String) -> Refusal? {
        if name.isEmpty { return .empty }
        if name == "." || name == ".." { return .dotSegment(name) }
        if name.hasPrefix(".") { return .hidden(name) }
        if name.contains("/") { return .separator(name) }
        if name.unicodeScalars.contains(where: isInvisible) { return .invisibleCharacter(name) }
        if name.utf8.count > maximumLength { return .tooLong(bytes: name.utf8.count) }
        return nil
    }

    /// The file `directory/name`, standardized, or `nil` when it is not directly inside the
    /// standardized `directory` under that very name.
    static func file(named name: String, in directory: URL) -> URL? {
        let base = directory.standardizedFileURL
        let file = base.appendingPathComponent(name, isDirectory: false).standardizedFileURL
        guard file.deletingLastPathComponent().path == base.path, file.lastPathComponent == name else { return nil }
        return file
    }

    /// Control characters (NUL, C0, DEL, C1), invisible formatting ones (bidirectional overrides,
    /// zero-width characters) and line or paragraph separators.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
