import Foundation
import Testing

/// Expects `actual` to be `expected`, byte for byte, and reports a mismatch by the two sizes and
/// the first differing offset.
///
/// Not `#expect(actual == expected)`: on a mismatch of two large byte collections Swift Testing
/// computes their difference, which takes minutes on both cooperative threads of a 2-core machine
/// and stalls every other test of the run — one failure then looks like a hung suite.
func expectSameBytes(
    _ actual: Data?, _ expected: Data, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let actual else {
        Issue.record("no bytes, expected \(expected.count)\(comment.map { " (\($0))" } ?? "")", sourceLocation: sourceLocation)
        return
    }
    guard actual != expected else { return }
    let offset = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(actual.count, expected.count)
    Issue.record(
        "\(actual.count) bytes, expected \(expected.count); first difference at offset \(offset)\(comment.map { " (\($0))" } ?? "")",
        sourceLocation: sourceLocation)
}
