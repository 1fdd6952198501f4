import Foundation

/// A Markdown file and its ```swift blocks.
package struct Article {
    /// The file's path, as given.
    package let path: String
    /// The file's name without `.md`: `Authentication`, `README`.
    package var name: String { URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent }
    package let blocks: [SwiftBlock]
}

/// Reads the Markdown file at `path` and finds its blocks.
package func readArticle(_ path: String) throws(ExtractionError) -> Article {
    Article(path: path, blocks: try SwiftBlock.blocks(in: try read(path), file: path))
}

/// The UTF-8 text of the file at `path`.
package func read(_ path: String) throws(ExtractionError) -> String {
    guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
        throw ExtractionError("error: cannot read \(path)")
    }
    return text
}

/// Writes `text` to `url`, creating its directory.
package func write(_ text: String, to url: URL) throws(ExtractionError) {
    do {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url, options: .atomic)
    } catch {
        throw ExtractionError("error: cannot write \(url.path): \(error)")
    }
}

/// Writes every manifest block of `articles` inside a `Package(…)` of its own, as
/// `directory/<n>/Package.swift`, with a comment naming the block's origin.
package func writeManifests(of articles: [Article], to directory: URL) throws(ExtractionError) {
    var count = 0
    for article in articles {
        for block in article.blocks where block.kind == .manifest {
            count += 1
            let manifest = """
                // swift-tools-version:6.1
                // \(article.path):\(block.fenceLine)
                import PackageDescription
                let package = Package(
                    name: "Sample",
                \(block.lines.joined(separator: "\n"))
                )

                """
            try write(manifest, to: directory.appendingPathComponent("\(count)/Package.swift"))
        }
    }
}
