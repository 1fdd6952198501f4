#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `descriptor` at its current position, writing again after a signal
/// interrupted a write; returns `nil`, or the `errno` of the write that failed (`EIO` for one that
/// wrote nothing). What a download's partial file, a disk cache's entry and a queue's journal write.
func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
    var offset = 0
    while offset < bytes.count {
        let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return written < 0 ? errno : EIO }
        offset += written
    }
    return nil
}
