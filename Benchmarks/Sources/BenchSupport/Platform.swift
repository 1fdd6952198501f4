import Glibc

/// Nanoseconds on the monotonic clock (`CLOCK_MONOTONIC`), for latencies and run time.
public func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Writes `message` and a newline to standard error (standard output carries only the JSON line).
public func standardError(_ message: String) {
    writeAll(2, message + "\n")
}

/// Reads the whole file at `path` as UTF-8 text, or `nil` when it cannot be read.
public func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return ferror(file) == 0 ? String(decoding: bytes, as: UTF8.self) : nil
}

/// Writes all of `text` to file descriptor `descriptor` (1 for standard output, 2 for standard error).
func writeAll(_ descriptor: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            return
        }
        bytes = bytes.dropFirst(written)
    }
}

/// The size in bytes of the file at `path`, or `nil` when it cannot be read.
public func fileSize(atPath path: String) -> Int64? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return Int64(status.st_size)
}

/// Flushes the file at `path` to disk (`fsync` on a descriptor of its own, which flushes whatever
/// any descriptor wrote to it); `false` when it cannot.
public func flushFile(atPath path: String) -> Bool {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    return fsync(descriptor) == 0
}
