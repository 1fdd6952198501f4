import CCurlFuzz
#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer with the process's arguments on `target` and exits with its status.
///
/// Each target's `main.swift` calls this rather than relying on libFuzzer's own `main`: SwiftPM
/// links an executable target's entry point as `<Target>_main` (so tests can import executables),
/// which leaves libFuzzer's `main` unused.
public func runLibFuzzer(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}
