import Foundation

/// Standard output or standard error, written with `write(2)` (no buffering to flush, safe from
/// any thread).
enum StandardStream: Int32, Sendable {
    case output = 1
    case error = 2

    /// Whether the stream is a terminal (`isatty`): progress bars are drawn only there.
    var isTerminal: Bool { isatty(rawValue) == 1 }

    /// Writes all of `data`; `false` when the stream is closed or broken (a pipe whose reader left).
    @discardableResult
    func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = writeSome(rawValue, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    guard errno == EINTR else { return false }
                    continue
                }
                offset += written
            }
            return true
        }
    }

    /// Writes `text` as UTF-8.
    @discardableResult
    func write(_ text: String) -> Bool { write(Data(text.utf8)) }
}

/// `write(2)`, under a name the method above does not hide.
private func writeSome(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
