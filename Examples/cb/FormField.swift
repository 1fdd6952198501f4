import Foundation

/// A `-F` argument: `name=value` for a text part, `name=@FILE` or `name=@FILE;type=MIME` for a
/// file part (streamed from disk, named after the file).
enum FormField: Equatable {
    case text(name: String, value: String)
    case file(name: String, path: String, contentType: String?)

    /// `nil` when there is no `=` or no name.
    init?(_ argument: String) {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else { return nil }
        let name = String(argument[..<equals])
        let value = argument[argument.index(after: equals)...]
        guard value.hasPrefix("@") else {
            self = .text(name: name, value: String(value))
            return
        }
        let file = value.dropFirst()
        if let range = file.range(of: ";type=") {
            self = .file(name: name, path: String(file[..<range.lowerBound]), contentType: String(file[range.upperBound...]))
        } else {
            self = .file(name: name, path: String(file), contentType: nil)
        }
    }
}
