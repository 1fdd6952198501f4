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
            return String(cString: strerror(posix.code.rawValue))
        }
        return String(describing: self)
    }
}
