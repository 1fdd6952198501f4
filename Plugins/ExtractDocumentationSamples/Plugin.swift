import Foundation
import PackagePlugin

/// Compiles the ```swift blocks of the README and the DocC articles as part of the target it is
/// applied to: for each context file `Articles/<Name>.swift` in the target, the block code of
/// the article `<Name>.md` (README.md at the package root, or an article of a `.docc` catalog
/// under Sources) becomes a generated source of the target (DocumentationSampleExtractor).
@main
struct ExtractDocumentationSamples: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let articles = try markdownFiles(in: context.package.directoryURL)
        let extractor = try context.tool(named: "DocumentationSampleExtractor").url
        let contexts = target.sourceFiles(withSuffix: ".swift").map(\.url)
            .filter { $0.deletingLastPathComponent().lastPathComponent == "Articles" }
        return try contexts.map { contextFile in
            let name = contextFile.deletingPathExtension().lastPathComponent
            let named = articles.filter { $0.deletingPathExtension().lastPathComponent == name }
            guard let article = named.first, named.count == 1 else {
                throw PluginError("\(contextFile.path): \(named.count) Markdown files are named \(name).md; one must be")
            }
            let output = context.pluginWorkDirectoryURL.appendingPathComponent("\(name)+Samples.swift")
            return .buildCommand(
                displayName: "Extracting the Swift samples of \(article.lastPathComponent)",
                executable: extractor,
                arguments: [article.path, contextFile.path, output.path],
                inputFiles: [article, contextFile],
                outputFiles: [output])
        }
    }

    /// README.md and every Markdown file of the catalogs under Sources, at any depth.
    private func markdownFiles(in package: URL) throws -> [URL] {
        let sources = package.appendingPathComponent("Sources")
        let catalogs = try FileManager.default.contentsOfDirectory(at: sources, includingPropertiesForKeys: nil)
            .flatMap { module in
                try FileManager.default.contentsOfDirectory(at: module, includingPropertiesForKeys: nil)
                    .filter { $0.pathExtension == "docc" }
            }
        let articles = catalogs.flatMap { catalog in
            (FileManager.default.enumerator(at: catalog, includingPropertiesForKeys: nil)?.allObjects ?? [])
                .compactMap { $0 as? URL }
                .filter { $0.pathExtension == "md" }
        }
        return [package.appendingPathComponent("README.md")] + articles
    }
}

/// A misconfigured samples target.
struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
