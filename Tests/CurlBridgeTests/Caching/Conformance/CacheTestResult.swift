/// The verdict of one test of a run.
struct CacheTestResult: Sendable {
    /// The ID of the suite the test belongs to.
    let suiteID: String
    let test: CacheTest
    let verdict: CacheTestVerdict

    /// `results` with each test whose dependency did not pass marked
    /// ``CacheTestVerdict/dependencyFailed(on:)``, as test-engine/lib/results.mjs does: a test
    /// not run stays not applicable, and a dependency that was not run, or did not pass for any
    /// reason, fails its dependants.
    static func applyingDependencies(to results: [CacheTestResult]) -> [CacheTestResult] {
        let resultsByID = Dictionary(results.map { ($0.test.id, $0) }, uniquingKeysWith: { first, _ in first })
        var resolved: [String: CacheTestVerdict] = [:]
        func resolvedVerdict(of id: String) -> CacheTestVerdict? {
            if let verdict = resolved[id] { return verdict }
            guard let result = resultsByID[id] else { return nil }
            var verdict = result.verdict
            if case .notApplicable = verdict {
            } else if let failedDependency = result.test.dependsOn.first(where: { resolvedVerdict(of: $0) != .passed }) {
                verdict = .dependencyFailed(on: failedDependency)
            }
            resolved[id] = verdict
            return verdict
        }
        return results.map { CacheTestResult(suiteID: $0.suiteID, test: $0.test, verdict: resolvedVerdict(of: $0.test.id) ?? $0.verdict) }
    }
}
