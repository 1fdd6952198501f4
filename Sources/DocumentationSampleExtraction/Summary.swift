/// How many ```swift blocks each file has of each kind, as scripts/docs.sh prints them.
package struct Summary {
    package let files: [Article]

    /// The summary of `files`.
    package init(files: [Article]) { self.files = files }

    package var report: String {
        var lines: [String] = []
        var totals = (code: 0, manifest: 0, comparison: 0)
        for file in files where !file.blocks.isEmpty {
            let code = file.blocks.count { $0.kind == .code }
            let manifest = file.blocks.count { $0.kind == .manifest }
            let comparison = file.blocks.count { $0.kind == .comparison }
            totals = (totals.code + code, totals.manifest + manifest, totals.comparison + comparison)
            lines.append("\(file.path): \(code) compiled, \(manifest) manifest, \(comparison) comparison")
        }
        let all = totals.code + totals.manifest + totals.comparison
        lines.append("""
            \(all) Swift blocks in \(lines.count) files: \(totals.code) compiled, \(totals.manifest) evaluated \
            as package manifests, \(totals.comparison) other libraries' code shown for comparison (not compiled)
            """)
        return lines.joined(separator: "\n")
    }
}
