// The documentation samples' extractor (scripts/docs.sh, Plugins/ExtractDocumentationSamples);
// its logic is the DocumentationSampleExtraction module.
//
//   DocumentationSampleExtractor ARTICLE.md CONTEXT.swift OUTPUT.swift
//       writes the Swift file that compiles the article's code blocks (SampleSource)
//   DocumentationSampleExtractor --summary FILE.md…
//       prints, per file and in total, how many ```swift blocks are compiled, evaluated as
//       manifests, or shown for comparison only
//   DocumentationSampleExtractor --manifests DIRECTORY FILE.md…
//       writes each manifest block, inside a Package(…), as DIRECTORY/<n>/Package.swift
import DocumentationSampleExtraction
import Foundation

do throws(ExtractionError) {
    var arguments = Array(CommandLine.arguments.dropFirst())
    switch arguments.first {
    case "--summary":
        arguments.removeFirst()
        print(try Summary(files: arguments.map(readArticle)).report)
    case "--manifests":
        arguments.removeFirst()
        guard !arguments.isEmpty else { throw ExtractionError("usage: --manifests DIRECTORY FILE.md…") }
        let directory = URL(fileURLWithPath: arguments.removeFirst())
        try writeManifests(of: arguments.map(readArticle), to: directory)
    default:
        guard arguments.count == 3 else { throw ExtractionError("usage: ARTICLE.md CONTEXT.swift OUTPUT.swift") }
        let article = try readArticle(arguments[0])
        let context = try read(arguments[1])
        let source = SampleSource(
            markdownPath: article.path,
            blocks: article.blocks.filter { $0.kind == .code },
            contextImports: context.split(separator: "\n").map(String.init).compactMap(SampleSource.importDeclaration))
        try write(source.render(articleNamed: article.name), to: URL(fileURLWithPath: arguments[2]))
    }
} catch {
    FileHandle.standardError.write(Data((error.message + "\n").utf8))
    exit(1)
}
