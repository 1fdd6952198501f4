@testable import DocumentationSampleExtraction
import Testing

/// How the extractor reads an article's blocks and writes the code that compiles them.
@Suite struct SampleExtractionTests {
    let article = """
        # Title

        ```swift
        // Package.swift
        dependencies: [],
        ```

        ```swift
        // Before: NSURLSession
        URLSession.shared.dataTask(with: url).resume()
        ```

        ```sh
        scripts/test.sh
        ```

        ```swift
        import CurlBridgeTesting
        let client = AsyncClient(transport: transport)   // no await here
        var configuration = Configuration()
        if ready { let inner = 1 }
        ```

        ```swift
        let user = try await client.send(.get("users/42"))
        ```
        """

    @Test func eachSwiftBlockIsFoundWithItsLineAndKind() throws {
        let blocks = try SwiftBlock.blocks(in: article, file: "A.md")
        #expect(blocks.map(\.fenceLine) == [3, 8, 17, 24])
        #expect(blocks.map(\.kind) == [.manifest, .comparison, .code, .code])
        #expect(blocks[2].lines.count == 4)
    }

    @Test func anUnclosedBlockIsAnError() {
        #expect(throws: ExtractionError.self) { try SwiftBlock.blocks(in: "```swift\nlet a = 1\n", file: "A.md") }
    }

    @Test func theGeneratedFilePointsAtTheArticleAndKeepsImportsAtTheTop() throws {
        let blocks = try SwiftBlock.blocks(in: article, file: "A.md").filter { $0.kind == .code }
        let source = SampleSource(markdownPath: "/docs/A.md", blocks: blocks, contextImports: ["import CurlBridge"])
            .render(articleNamed: "Getting-Started")
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[1] == "import CurlBridge" && lines[2] == "import CurlBridgeTesting")
        #expect(lines.contains("extension GettingStartedSamples {"))
        // A comment's "await" does not make a block async; a real one does.
        #expect(lines.contains("    func sampleAtLine17() throws {"))
        #expect(lines.contains("    func sampleAtLine24() async throws {"))
        #expect(lines.contains("#sourceLocation(file: \"/docs/A.md\", line: 18)"))
        // The block's import left its body; its own unindented declarations are used once.
        #expect(lines.count { $0.contains("import CurlBridgeTesting") } == 1)
        #expect(lines.contains("        _ = (client, configuration)"))
        #expect(lines.contains("        _ = (user)"))
    }

    @Test func theSummaryCountsEveryKind() throws {
        let summary = Summary(files: [Article(path: "A.md", blocks: try SwiftBlock.blocks(in: article, file: "A.md"))])
        #expect(summary.report.hasPrefix("A.md: 2 compiled, 1 manifest, 1 comparison\n4 Swift blocks in 1 files"))
    }
}
