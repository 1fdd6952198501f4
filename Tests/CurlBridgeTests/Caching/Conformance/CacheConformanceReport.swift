/// The report of a run: per suite file, how many applicable tests of each kind passed, how many
/// could not be set up or lost a dependency, and how many were not applicable; then every MUST
/// test that did not pass, with why, and the SHOULD and check tests that did not.
struct CacheConformanceReport {
    let results: [CacheTestResult]

    var text: String {
        var lines = ["HTTP cache conformance (http-tests/cache-tests, Tests/cache-tests/README.md)", ""]
        let header = ["suite", "MUST", "SHOULD", "check", "setup-failed", "dependency-failed", "n/a"]
        var rows: [[String]] = []
        var suiteIDs: [String] = []
        for result in results where !suiteIDs.contains(result.suiteID) { suiteIDs.append(result.suiteID) }
        for suiteID in suiteIDs {
            rows.append(Self.row(suiteID, results.filter { $0.suiteID == suiteID }))
        }
        rows.append(Self.row("all", results))
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            lines.append(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }

        let must = results.filter { $0.test.kind == .required }
        lines.append("")
        lines.append(contentsOf: Self.section("Failing MUST tests", must.compactMap { result in
            guard case .failed(let message) = result.verdict else { return nil }
            return "\(result.test.id): \(message)"
        }))
        lines.append(contentsOf: Self.section("MUST tests whose setup failed", must.compactMap { result in
            guard case .setupFailed(let message) = result.verdict else { return nil }
            return "\(result.test.id): \(message)"
        }))
        lines.append(contentsOf: Self.section("MUST tests whose dependency did not pass", must.compactMap { result in
            guard case .dependencyFailed(let dependency) = result.verdict else { return nil }
            return "\(result.test.id): depends on \(dependency)"
        }))
        lines.append(contentsOf: Self.section("SHOULD and check tests that did not pass", results.compactMap { result in
            guard result.test.kind != .required, result.verdict != .passed else { return nil }
            if case .notApplicable = result.verdict { return nil }
            return "\(result.test.id) (\(result.test.kind == .optimal ? "SHOULD" : "check")): \(result.verdict)"
        }))
        var notApplicable: [String: Int] = [:]
        for result in results {
            if case .notApplicable(let reason) = result.verdict { notApplicable[reason, default: 0] += 1 }
        }
        let notApplicableCounts = notApplicable.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value) tests" }
        lines.append(contentsOf: Self.section("Not applicable, by reason", notApplicableCounts))
        return lines.joined(separator: "\n") + "\n"
    }

    private static func row(_ title: String, _ results: [CacheTestResult]) -> [String] {
        let applicable = results.filter {
            if case .notApplicable = $0.verdict { return false }
            return true
        }
        func passed(_ kind: CacheTest.Kind) -> String {
            let ofKind = applicable.filter { $0.test.kind == kind }
            return "\(ofKind.filter { $0.verdict == .passed }.count)/\(ofKind.count)"
        }
        let setupFailed = applicable.filter {
            if case .setupFailed = $0.verdict { return true }
            return false
        }
        let dependencyFailed = applicable.filter {
            if case .dependencyFailed = $0.verdict { return true }
            return false
        }
        return [
            title, passed(.required), passed(.optimal), passed(.check), String(setupFailed.count), String(dependencyFailed.count),
            String(results.count - applicable.count),
        ]
    }

    private static func section(_ title: String, _ entries: [String]) -> [String] {
        guard !entries.isEmpty else { return [] }
        return ["\(title) (\(entries.count)):"] + entries.map { "  " + $0 } + [""]
    }
}
