#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The name of a download's partial file: `.NAME.TOKEN.curlbridge-partial` in the destination's
/// directory, `NAME` being the destination's name and `TOKEN` a random number in base 36 (`0-9a-z`,
/// no dot). One value both makes the name and recognises it: a download makes one, a
/// ``DownloadQueue`` finds a crash's orphans by it, and resume data and journal records are
/// checked against it, so that nothing the library reads back can make it open, truncate, rename
/// or delete any other file.
///
/// The token has no dot, so `.a.iso.sig.TOKEN.curlbridge-partial` (the partial file of `a.iso.sig`)
/// is never taken for one of `a.iso`'s. Names are compared byte for byte, as the file system
/// compares them: `é` written as one code point and as `e` with a combining accent are two
/// names, though Swift's `String` calls them equal.
///
/// A program that tidies a directory of downloads finds the partial files of a destination with
/// ``recognises(_:)``: every other file there is left alone.
public struct PartialFileName: Hashable, Sendable {
    private static let suffix = Array(".curlbridge-partial".utf8)
    /// The longest token: 2^64 − 1 in base 36.
    private static let maximumTokenLength = 13

    /// The destination's file name.
    public let destinationName: String

    /// The partial files of a destination named `destinationName`.
    public init(destinationName: String) {
        self.destinationName = destinationName
    }

    /// The partial files of `destination`, by its last path component.
    public init(of destination: URL) {
        self.init(destinationName: destination.lastPathComponent)
    }

    /// The name of a partial file with `token` (a random one by default).
    public func make(token: UInt64 = .random(in: .min ... .max)) -> String {
        ".\(destinationName).\(String(token, radix: 36))\(String(decoding: Self.suffix, as: UTF8.self))"
    }

    /// Whether `name` is the name of a partial file of this destination: `.NAME.`, a token of
    /// `0-9a-z` as ``make(token:)`` writes one, then the suffix — compared as bytes.
    public func recognises(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let prefix = Array(".\(destinationName).".utf8)
        guard !destinationName.isEmpty, bytes.count > prefix.count + Self.suffix.count, bytes.starts(with: prefix),
              bytes.suffix(Self.suffix.count).elementsEqual(Self.suffix)
        else { return false }
        let token = bytes[prefix.count..<(bytes.count - Self.suffix.count)]
        return token.count <= Self.maximumTokenLength
            && token.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
    }

    /// Whether `partialFile` is a partial file of `destination`: in the same directory, named as
    /// ``make(token:)`` names them, its path free of `.` and `..` components (which the kernel
    /// would resolve through symbolic links, and a comparison of text would not). The directories
    /// are compared as standardized file paths, byte for byte.
    static func isPartialFile(_ partialFile: URL, of destination: URL) -> Bool {
        guard partialFile.isFileURL, destination.isFileURL,
              !partialFile.path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." })
        else { return false }
        let partial = partialFile.standardizedFileURL
        let target = destination.standardizedFileURL
        return partial.deletingLastPathComponent().path.utf8.elementsEqual(target.deletingLastPathComponent().path.utf8)
            && PartialFileName(of: target).recognises(partial.lastPathComponent)
    }
}
