#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension Error {
    /// What went wrong with a file, in words: the system's text for the POSIX error under a
    /// Foundation file error (`No such file or directory`), else the error as it describes itself.
    /// Full Foundation's `localizedDescription`, which this replaces, is not in FoundationEssentials.
    var fileErrorText: String {
        if let posix = (self as? CocoaError)?.underlying as? POSIXError ?? self as? POSIXError {
            return SystemError.text(posix.code.rawValue)
        }
        return String(describing: self)
    }
}

/// The C library's words for an `errno` value.
enum SystemError {
    /// The text for `code` (`No such file or directory`), through `strerror_r`, which writes into
    /// a buffer of its caller's where `strerror` may share one between threads.
    static func text(_ code: Int32) -> String {
        var text = [CChar](repeating: 0, count: 256)
        // For a number it does not know, glibc writes "Unknown error N" and still returns EINVAL.
        guard strerror_r(code, &text, text.count) == 0 || text[0] != 0 else { return "error \(code)" }
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
