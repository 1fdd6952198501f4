import Glibc

/// Where response bodies go: a file descriptor written as bytes arrive, never a buffer that
/// grows with the body. Writes from several threads may interleave; a sink is a drain, not a
/// faithful copy of any one body.
public final class BodySink: Sendable {
    private let descriptor: Int32
    /// The path written to.
    public let path: String

    /// Opens (creating or truncating) `path` for writing.
    public init?(path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Writes all of `bytes`; returns `false` when the file refuses them.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var next = bytes.baseAddress else { return true }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(descriptor, next, left)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            next += written
            left -= written
        }
        return true
    }

    /// Writes all of `bytes`, from any contiguous collection of bytes.
    @discardableResult
    public func write<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes) -> Bool {
        let done = bytes.withContiguousStorageIfAvailable { write(UnsafeRawBufferPointer($0)) }
        if let done { return done }
        let copy = Array(bytes)
        return copy.withUnsafeBytes { write($0) }
    }
}
