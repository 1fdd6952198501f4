import CurlBridge
import Foundation
import HTTPTypes

extension TransferOptions {
    /// The transfers for `urls`, in command-line order.
    func transfers(_ method: HTTPRequest.Method, _ urls: [String]) -> [Transfer] {
        let destinations = destinations(for: urls)
        return urls.indices.map { index in
            Transfer(
                index: index, request: request(method, urls[index]), destination: destinations[index],
                createsDirectories: urls.count > 1 || output?.hasSuffix("/") == true, resumes: resume, includesHead: include,
                failsOnHTTPError: fail, isVerbose: verbose)
        }
    }

    /// Where `-o` puts each URL's body: the file it names, for one URL; for several URLs (or a
    /// path ending in `/`, or an existing directory) a directory, each file named after its URL's
    /// last path component (`-2`, `-3`… after names already taken). `nil` without `-o`.
    func destinations(for urls: [String]) -> [URL?] {
        guard let output else { return urls.map { _ in nil } }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
        guard urls.count > 1 || output.hasSuffix("/") || (exists && isDirectory.boolValue) else {
            return [URL(fileURLWithPath: output)]
        }
        let directory = URL(fileURLWithPath: output, isDirectory: true)
        var taken: Set<String> = []
        return urls.map { url in
            let last = URL(string: url)?.lastPathComponent ?? ""
            let base = last.isEmpty || last == "/" ? "index.html" : last
            var name = base, number = 1
            while taken.contains(name) {
                number += 1
                name = "\(base)-\(number)"
            }
            taken.insert(name)
            return directory.appendingPathComponent(name)
        }
    }
}
