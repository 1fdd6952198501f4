#if canImport(Glibc)
import Glibc

/// glibc's `gettid` (2.30 and later), which its headers declare only under `_GNU_SOURCE`.
private let gettidFunction = dlsym(nil, "gettid").map { unsafeBitCast($0, to: (@convention(c) () -> pid_t).self) }

/// Whether the calling thread is the process's main thread, decided as full Foundation's
/// `Thread.isMainThread` decides it on Linux: its thread id is the process id. Without `gettid`
/// (an older glibc), the thread's id is read from `/proc/thread-self` (`<pid>/task/<tid>`).
func currentThreadIsMain() -> Bool {
    if let gettidFunction { return gettidFunction() == getpid() }
    var link = [CChar](repeating: 0, count: 64)
    let count = readlink("/proc/thread-self", &link, link.count)
    guard count > 0 else { return false }
    return String(decoding: link[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        .split(separator: "/").last.flatMap { pid_t($0) } == getpid()
}
#endif
