extension String {
    /// Whether the text holds CR, LF or NUL, any of which would end or corrupt the header line it
    /// is written into (header injection); such text is refused, never "fixed".
    var containsHeaderBreakingCharacter: Bool {
        unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
    }
}
