import Foundation

/// One fenced ```swift block of a Markdown file, and what the documentation checks do with it.
package struct SwiftBlock {
    /// What a block is, by its first line.
    package enum Kind {
        /// CurlBridge code: compiled inside a function of the article's samples type.
        case code
        /// Another library's code shown for comparison (first line `// Before: …`): not compiled,
        /// since NSURLSession's Apple-only API (`kCFNetworkProxies…`) and AFNetworking do not
        /// exist on Linux.
        case comparison
        /// A part of a package manifest (first line `// Package.swift`): evaluated by
        /// `swift package dump-package` inside a `Package(…)` (scripts/docs.sh).
        case manifest
    }

    /// The line of the opening fence, counting from 1.
    package let fenceLine: Int
    /// The lines between the fences.
    package let lines: [String]

    package var kind: Kind {
        let first = lines.first { !$0.allSatisfy(\.isWhitespace) }?.trimmingCharacters(in: .whitespaces) ?? ""
        if first.hasPrefix("// Before:") { return .comparison }
        if first == "// Package.swift" { return .manifest }
        return .code
    }

    /// Every ```swift block of `markdown`, in order. A block left open at the end is an error:
    /// DocC would render the rest of the article as code.
    package static func blocks(in markdown: String, file: String) throws(ExtractionError) -> [SwiftBlock] {
        var blocks: [SwiftBlock] = []
        var open: (line: Int, lines: [String])?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = String(line)
            if var current = open {
                if text.trimmingCharacters(in: .whitespaces) == "```" {
                    blocks.append(SwiftBlock(fenceLine: current.line, lines: current.lines))
                    open = nil
                } else {
                    current.lines.append(text)
                    open = current
                }
            } else if text.trimmingCharacters(in: .whitespaces) == "```swift" {
                open = (index + 1, [])
            }
        }
        if let open { throw ExtractionError("\(file):\(open.line): error: this ```swift block is never closed") }
        return blocks
    }
}

/// A failure the extractor reports as a compiler-style line and exits 1.
package struct ExtractionError: Error {
    package let message: String
    package init(_ message: String) { self.message = message }
}
