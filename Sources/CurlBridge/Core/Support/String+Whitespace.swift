extension StringProtocol {
    /// The text without its leading and trailing whitespace as Foundation's
    /// `CharacterSet.whitespaces` defines it: tab, the Unicode space separators (category Zs) and
    /// U+200B ZERO WIDTH SPACE, which Foundation's tables still count among them. What
    /// `trimmingCharacters(in: .whitespaces)` returns, without full Foundation.
    func trimmingWhitespace() -> String {
        trimming { $0 == "\t" || $0 == "\u{200B}" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// The text without the leading and trailing scalars `isTrimmed` picks, as Foundation's
    /// `trimmingCharacters(in:)` compares them: scalar by scalar.
    func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        var trimmed = ""
        trimmed.unicodeScalars.append(contentsOf: scalars[first...last])
        return trimmed
    }
}
