import CurlBridge
import Foundation
import HTTPTypes

extension TransferOptions {
    /// The transfers for `urls`, in command-line order.
    ///
    /// - Throws: What ``destinations(for:)`` throws.
    func transfers(_ method: HTTPRequest.Method, _ urls: [String]) throws(CommandFailure) -> [Transfer] {
        let destinations = try destinations(for: urls)
        return urls.indices.map { index in
            Transfer(
                index: index, request: request(method, urls[index]), destination: destinations[index],
                createsDirectories: urls.count > 1 || output?.hasSuffix("/") == true, resumes: resume, includesHead: include,
                failsOnHTTPError: fail, isVerbose: verbose)
        }
    }

    /// Where `-o` puts each URL's body: the file it names, for one URL; for several URLs (or a
    /// path ending in `/`, or an existing directory) a directory, each file named after its URL
    /// by ``RemoteFileName`` (the last path segment as the URL spells it, never decoded), with
    /// `-2`, `-3`… after names already taken. `nil` without `-o`.
    ///
    /// - Throws: ``ExitStatus/fileError`` (curl's exit code when `-O` finds no usable name) for a
    ///   URL whose name would be `.`, `..`, hidden or otherwise unsafe; ``ExitStatus/usage`` for
    ///   one that is not a URL. Nothing is sent then.
    func destinations(for urls: [String]) throws(CommandFailure) -> [URL?] {
        guard let output else { return urls.map { _ in nil } }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
        guard urls.count > 1 || output.hasSuffix("/") || (exists && isDirectory.boolValue) else {
            return [URL(fileURLWithPath: output)]
        }
        let directory = URL(fileURLWithPath: output, isDirectory: true)
        var taken: Set<String> = []
        var destinations: [URL?] = []
        for url in urls {
            let file: URL
            do throws(RequestError) {
                file = try RemoteFileName(url).file(in: directory)
            } catch {
                throw CommandFailure(ExitStatus(error), "\(url): \(error.message)")
            }
            // A number after a safe name keeps it safe: digits, in the same directory.
            var name = file.lastPathComponent, number = 1
            while taken.contains(name) {
                number += 1
                name = "\(file.lastPathComponent)-\(number)"
            }
            taken.insert(name)
            destinations.append(file.deletingLastPathComponent().appendingPathComponent(name))
        }
        return destinations
    }
}
