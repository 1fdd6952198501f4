/// A `-H 'Name: value'` argument.
struct HeaderLine: Equatable {
    let name: String
    let value: String

    /// `nil` when there is no colon or no name. The value is trimmed of spaces around it; the
    /// request builder rejects characters a header cannot hold.
    init?(_ line: String) {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        self.name = name
        self.value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
