import Foundation

/// The name of a download's partial file: `.NAME.TOKEN.curlbridge-partial` in the destination's
/// directory, `NAME` being the destination's name and `TOKEN` a random number in base 36 (`0-9a-z`,
/// no dot). Made and recognised here alone: ``DownloadFile`` makes one, a ``DownloadQueue`` finds
/// a crash's orphans by it, and resume data and journal records are checked against it, so that
/// nothing the library reads back can make it open, truncate, rename or delete any other file.
///
/// The token has no dot, so `.a.iso.sig.TOKEN.curlbridge-partial` (the partial file of `a.iso.sig`)
/// is never taken for one of `a.iso`'s.
enum PartialFileName {
    private static let suffix = ".curlbridge-partial"

    /// A new name for a partial file of `destinationName`, with a random token.
    static func make(for destinationName: String) -> String {
        var random = SystemRandomNumberGenerator()
        return ".\(destinationName).\(String(random.next(), radix: 36))\(suffix)"
    }

    /// Whether `name` is the name of a partial file of `destinationName`.
    static func isPartialFile(_ name: String, of destinationName: String) -> Bool {
        let prefix = ".\(destinationName)."
        guard !destinationName.isEmpty, name.hasPrefix(prefix), name.hasSuffix(suffix),
              name.utf8.count > prefix.utf8.count + suffix.utf8.count
        else { return false }
        let token = name.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count)
        return token.count <= 13 && token.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
    }

    /// Whether `partialFile` is a partial file of `destination`: in the same directory, named as
    /// ``make(for:)`` names them, its path free of `.` and `..` components (which the kernel would
    /// resolve through symbolic links, and a comparison of text would not). The directories are
    /// compared as standardized file paths.
    static func isPartialFile(_ partialFile: URL, of destination: URL) -> Bool {
        guard partialFile.isFileURL, destination.isFileURL,
              !partialFile.path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." })
        else { return false }
        let partial = partialFile.standardizedFileURL
        let target = destination.standardizedFileURL
        return partial.deletingLastPathComponent().path == target.deletingLastPathComponent().path
            && isPartialFile(partial.lastPathComponent, of: target.lastPathComponent)
    }
}
