import Foundation

/// The Swift file that compiles an article's code blocks: each block becomes the body of one
/// `async throws` method of the article's samples type, which the article's context file declares
/// with the names the article assumes (a `client`, a `destination`, a `User` type…).
///
/// `#sourceLocation` points every diagnostic at the Markdown line, so a sample that no longer
/// compiles fails the build with the article's path and line.
package struct SampleSource {
    /// The article's path, as diagnostics should name it.
    package let markdownPath: String
    /// The article's code blocks (``SwiftBlock/Kind/code``).
    package let blocks: [SwiftBlock]
    /// The `import` lines of the article's context file.
    package let contextImports: [String]

    /// The source for `blocks` of the article at `markdownPath`, with its context's imports.
    package init(markdownPath: String, blocks: [SwiftBlock], contextImports: [String]) {
        self.markdownPath = markdownPath
        self.blocks = blocks
        self.contextImports = contextImports
    }

    /// The samples type the context file declares: `AuthenticationSamples` for `Authentication.md`.
    package static func typeName(forArticleNamed name: String) -> String {
        String(name.filter { $0.isLetter || $0.isNumber }) + "Samples"
    }

    /// The generated file for the article named `name`.
    package func render(articleNamed name: String) -> String {
        let blockImports = blocks.flatMap(\.lines).compactMap(Self.importDeclaration)
        var imports: [String] = []
        for line in contextImports + blockImports where !imports.contains(line) { imports.append(line) }
        var out = ["// Generated from \(markdownPath) by DocumentationSampleExtractor; edit the article instead."]
        out += imports
        out.append("")
        out.append("extension \(Self.typeName(forArticleNamed: name)) {")
        for block in blocks {
            // Blocking calls are unavailable in async functions: a block awaits nothing or is async.
            let effects = block.lines.contains(where: Self.awaits) ? "async throws" : "throws"
            out.append("    func sampleAtLine\(block.fenceLine)() \(effects) {")
            out.append("#sourceLocation(file: \"\(markdownPath)\", line: \(block.fenceLine + 1))")
            // An import inside a function is an error; the block's imports moved to the file's top.
            out += block.lines.map { Self.importDeclaration($0) == nil ? $0 : "" }
            out.append("#sourceLocation()")
            // A sample's point is often the value it makes, not a later use of it.
            let declared = block.lines.compactMap(Self.declaredName)
            if !declared.isEmpty { out.append("        _ = (\(declared.joined(separator: ", ")))") }
            out.append("    }")
        }
        out.append("}")
        return out.joined(separator: "\n") + "\n"
    }

    /// Whether a line has an `await` outside a comment.
    package static func awaits(_ line: String) -> Bool {
        let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? line
        return code.split(whereSeparator: { !$0.isLetter }).contains("await")
    }

    /// The name a block's own (unindented) `let` or `var` line declares, if it is one.
    package static func declaredName(_ line: String) -> String? {
        for keyword in ["let ", "var "] where line.hasPrefix(keyword) {
            let name = line.dropFirst(keyword.count).prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            return name.isEmpty || name == "_" ? nil : String(name)
        }
        return nil
    }

    /// The import declaration on `line`, without its surrounding spaces, if the line is one.
    package static func importDeclaration(_ line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let prefixes = ["import ", "@testable import ", "@preconcurrency import "]
        return prefixes.contains(where: trimmed.hasPrefix) ? trimmed : nil
    }
}
