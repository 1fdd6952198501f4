#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension RequestError {
    /// A ``Code/fileIO`` error saying `what` failed, with the C library's text for the `errno`
    /// value `code`, and `code` as its underlying `POSIXError`.
    static func fileIO(_ code: Int32, _ what: String) -> RequestError {
        RequestError(
            .fileIO, "\(what): \(SystemError.text(code))",
            underlying: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
    }
}
