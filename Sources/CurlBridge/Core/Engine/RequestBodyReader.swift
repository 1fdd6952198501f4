#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where curl's read callback takes a request body from: bytes in memory, a file, or a stream.
///
/// Not `Sendable`: owned by one ``CurlTransfer`` and used only on its transport's queue.
enum RequestBodyReader {
    /// Bytes in memory, and how many were handed to curl.
    case bytes(Data, position: Int)
    /// An open file, read with `read(2)` as curl asks, never past the length it had when opened
    /// (the announced `Content-Length`); closed when the transfer ends.
    case file(descriptor: Int32, length: Int64, position: Int64)
    /// A stream filled by its producer.
    case stream(BodyStream)

    /// The reader for `content`, or `nil` when curl sends it itself (multipart) or there is none.
    ///
    /// - Throws: ``RequestError/Code/fileIO`` when a body file cannot be opened.
    init?(_ content: Request.Body.Content?) throws(RequestError) {
        switch content {
        case .bytes(let data)?:
            self = .bytes(data, position: 0)
        case .file(let url)?:
            let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            var status = stat()
            guard descriptor >= 0, fstat(descriptor, &status) == 0 else {
                let reason = SystemError.text(errno)
                if descriptor >= 0 { Glibc.close(descriptor) }
                throw RequestError(.fileIO, "body file \(url.path.debugDescription) cannot be opened: \(reason)")
            }
            self = .file(descriptor: descriptor, length: Int64(status.st_size), position: 0)
        case .stream(let stream)?:
            self = .stream(stream)
        case .multipart?, nil:
            return nil
        }
    }

    /// The number of bytes the body has, or `nil` when unknown (sent chunked over HTTP/1.1).
    var length: Int64? {
        switch self {
        case .bytes(let data, _): Int64(data.count)
        case .file(_, let length, _): length
        case .stream(let stream): stream.length
        }
    }

    /// What curl's read callback returns.
    enum ReadResult {
        case bytes(Int)
        case pause
        case fail(RequestError)
    }

    /// Copies the next bytes into `buffer`; `.bytes(0)` at the end.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        switch self {
        case .bytes(let data, let position):
            let count = min(buffer.count, data.count - position)
            let start = data.startIndex + position
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<(start + count))
            self = .bytes(data, position: position + count)
            return .bytes(count)
        case .file(let descriptor, let length, let position):
            while true {
                let count = Glibc.read(descriptor, buffer.baseAddress, Int(min(Int64(buffer.count), length - position)))
                if count >= 0 {
                    if count == 0, position < length {
                        return .fail(RequestError(.fileIO, "the body file shrank while it was sent: \(position) of \(length) bytes"))
                    }
                    self = .file(descriptor: descriptor, length: length, position: position + Int64(count))
                    return .bytes(count)
                }
                if errno != EINTR {
                    return .fail(RequestError(.fileIO, "reading the body file failed: \(SystemError.text(errno))"))
                }
            }
        case .stream(let stream):
            switch stream.read(into: buffer) {
            case .bytes(let count): return .bytes(count)
            case .end: return .bytes(0)
            case .pause: return .pause
            case .fail(let error): return .fail(error)
            }
        }
    }

    /// Moves back to `offset` when curl must send the body again; `false` when it cannot.
    mutating func rewind(to offset: Int64) -> Bool {
        switch self {
        case .bytes(let data, _):
            guard (0...Int64(data.count)).contains(offset) else { return false }
            self = .bytes(data, position: Int(offset))
            return true
        case .file(let descriptor, let length, _):
            guard (0...length).contains(offset), lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else { return false }
            self = .file(descriptor: descriptor, length: length, position: offset)
            return true
        case .stream(let stream):
            return stream.canRewind(to: offset)
        }
    }

    /// Releases the file or stops the stream's producer.
    func close() {
        switch self {
        case .bytes: break
        case .file(let descriptor, _, _): _ = Glibc.close(descriptor)
        case .stream(let stream): stream.close()
        }
    }
}
