import CurlBridge
import Foundation

/// Where an interrupted `-o FILE` download remembers how to continue: `FILE.cb-resume`, the
/// library's ``ResumeData`` as JSON (the partial file's place and size, and the validator that
/// proves the server still has the same bytes). `--resume` reads it; success deletes it.
struct ResumeFile {
    let url: URL

    /// The resume file of the download to `destination`.
    init(for destination: URL) {
        url = destination.appendingPathExtension("cb-resume")
    }

    /// The saved resume data, or `nil` when there is none (or it cannot be read: start over).
    func load() -> ResumeData? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(ResumeData.self, from: data)
    }

    /// Saves `resumeData`, replacing an older one.
    func save(_ resumeData: ResumeData) throws(CommandFailure) {
        do {
            try JSONEncoder().encode(resumeData).write(to: url, options: .atomic)
        } catch {
            throw CommandFailure(.fileError, "cannot save \(url.path): \(error)")
        }
    }

    /// Deletes the resume file, if any.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
