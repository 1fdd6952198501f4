import Foundation

/// A child process started with `posix_spawn`: its standard output a pipe, its standard error a
/// pipe or the test process's, its standard input `/dev/null`; every other descriptor of the test
/// process is closed in it.
///
/// Why not Foundation's `Process`: on Linux, `Process.run()` (swift-corelibs-foundation up to
/// 6.3.1) lists `/proc/self/fd` to find the descriptors to close and copies the full 256-byte
/// `d_name` of each entry, reading past the end of glibc's directory buffer when an entry sits at
/// its end — AddressSanitizer reports it as a heap-buffer-overflow, and when the next page is
/// unmapped the test process dies with SIGSEGV in `memcpy` (fixed upstream by
/// swiftlang/swift-corelibs-foundation#5472). The suite has 1,000+ descriptors open at its busiest,
/// enough for such an entry; here glibc closes them (`posix_spawn_file_actions_addclosefrom_np`).
struct SpawnedChild {
    /// The child's process id.
    let pid: pid_t
    /// The read end of its standard output.
    let output: FileHandle
    /// The read end of its standard error, when captured.
    let error: FileHandle?

    /// Starts `executable` with `arguments` and the test process's environment; its standard
    /// error is captured when `capturingError`, else it writes to the test process's.
    init(_ executable: URL, _ arguments: [String], capturingError: Bool) throws {
        let outputPipe = try Self.makePipe()
        let errorPipe = capturingError ? try Self.makePipe() : nil
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        try Self.check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "addopen")
        try Self.check(posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1), "adddup2")
        if let errorPipe { try Self.check(posix_spawn_file_actions_adddup2(&actions, errorPipe.write, 2), "adddup2") }
        try Self.check(Self.addCloseFrom(&actions, 3), "addclosefrom_np")
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, as `Process` does: a signal to the test runner's group is not its.
        // Signal dispositions and mask are inherited, as with `Process` (SIGPIPE stays ignored).
        try Self.check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP)), "setflags")

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, environ)
        close(outputPipe.write)
        if let errorPipe { close(errorPipe.write) }
        guard spawned == 0 else {
            close(outputPipe.read)
            if let errorPipe { close(errorPipe.read) }
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
        }
        self.pid = pid
        output = FileHandle(fileDescriptor: outputPipe.read, closeOnDealloc: true)
        error = errorPipe.map { FileHandle(fileDescriptor: $0.read, closeOnDealloc: true) }
    }

    /// Waits for the child to end: its exit status, or the number of the signal that ended it
    /// (what `Process.terminationStatus` says).
    func waitUntilExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return -1 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    /// A pipe. Another child started meanwhile does not inherit its ends: every child closes all
    /// but its three standard descriptors.
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return (ends[0], ends[1])
    }

    private static func check(_ result: Int32, _ what: String) throws {
        guard result == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO, userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(what)"])
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which the Glibc module does not
    /// import (it is a GNU extension); `ENOSYS` when the C library has none.
    private static func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32 {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {  // nil: RTLD_DEFAULT
            return ENOSYS
        }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)(actions, from)
    }
}
