#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `multipart/form-data` body (RFC 7578), sent through libcurl's MIME API.
///
/// curl streams file parts from disk as it sends them (a 1 GiB file is never loaded into
/// memory), picks a random boundary from its cryptographic random source, escapes `"`, CR and LF
/// in names and filenames, and sends a `Content-Length` when every part's size is known.
///
/// ```swift
/// let form = MultipartForm()
///     .text("title", "Holiday")
///     .file("photo", at: URL(fileURLWithPath: "/tmp/beach.jpg"), contentType: "image/jpeg")
/// let response = try await client.send(.post("uploads").multipart(form))
/// ```
public struct MultipartForm: Sendable, Hashable {
    /// One part of the form.
    public struct Part: Sendable, Hashable {
        /// Where a part's bytes come from.
        public enum Content: Sendable, Hashable {
            /// UTF-8 text.
            case text(String)
            /// Bytes in memory.
            case data(Data)
            /// A file, streamed from disk while sending.
            case file(URL)
        }

        /// The field name.
        public var name: String
        /// The bytes.
        public var content: Content
        /// The `filename` sent; for files, their last path component unless given.
        public var filename: String?
        /// The part's `Content-Type`; none is sent when `nil`.
        public var contentType: String?
    }

    /// The parts, in sending order.
    public private(set) var parts: [Part] = []

    /// An empty form.
    public init() {}

    /// This form with a text field.
    public func text(_ name: String, _ value: String) -> MultipartForm {
        adding(Part(name: name, content: .text(value)))
    }

    /// This form with a part made of bytes in memory.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - data: The bytes.
    ///   - filename: The `filename` to send; none unless given.
    ///   - contentType: The part's type; `application/octet-stream` when a filename is given (as
    ///     browsers and curl send file content), none otherwise, unless given.
    public func data(_ name: String, _ data: Data, filename: String? = nil, contentType: String? = nil) -> MultipartForm {
        let type = contentType ?? (filename == nil ? nil : "application/octet-stream")
        return adding(Part(name: name, content: .data(data), filename: filename, contentType: type))
    }

    /// This form with a file part, streamed from disk while sending.
    ///
    /// A file that does not exist or cannot be read is reported at send time as
    /// ``RequestError/Code/fileIO``, before anything is sent.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - url: A `file:` URL.
    ///   - filename: The `filename` to send; the file's last path component unless given.
    ///   - contentType: The part's type; none unless given.
    public func file(_ name: String, at url: URL, filename: String? = nil, contentType: String? = nil) -> MultipartForm {
        adding(Part(name: name, content: .file(url), filename: filename, contentType: contentType))
    }

    private func adding(_ part: Part) -> MultipartForm {
        var copy = self
        copy.parts.append(part)
        return copy
    }

    /// Why this form cannot be sent, or `nil`: control characters in a part's name, filename or
    /// type, or a file that is missing, not a regular file, or unreadable.
    func problem() -> (RequestError.Code, String)? {
        for part in parts {
            for (what, text) in [("name", part.name), ("filename", part.filename ?? ""), ("content type", part.contentType ?? "")]
            where text.containsHeaderBreakingCharacter {
                return (.invalidHeader, "multipart part \(what) \(text.debugDescription) contains CR, LF or NUL")
            }
            if case .file(let url) = part.content, let problem = ReadableFile.problem(at: url, role: "multipart file") {
                return (.fileIO, problem)
            }
        }
        return nil
    }
}

extension Request {
    /// This request with a `multipart/form-data` body; the `Content-Type` with its boundary is
    /// set by curl.
    public func multipart(_ form: MultipartForm) -> Request {
        var copy = self
        copy.body = Body(multipart: form)
        return copy
    }
}
