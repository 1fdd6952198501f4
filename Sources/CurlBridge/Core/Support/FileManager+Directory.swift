#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FileManager {
    /// Whether `path` names a directory (symbolic links followed), or `nil` when nothing is there:
    /// `fileExists(atPath:isDirectory:)`, whose flag is a `Bool` in FoundationEssentials and an
    /// `ObjCBool` in full Foundation.
    func isDirectory(atPath path: String) -> Bool? {
        #if canImport(FoundationEssentials)
        var isDirectory = false
        return fileExists(atPath: path, isDirectory: &isDirectory) ? isDirectory : nil
        #else
        var isDirectory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &isDirectory) ? isDirectory.boolValue : nil
        #endif
    }
}
