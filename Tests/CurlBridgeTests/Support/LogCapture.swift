import Logging
import Synchronization

/// Log lines captured by the loggers made from it (``logger(level:)``), for tests: a per-logger
/// handler, never `LoggingSystem.bootstrap` (which is process-wide and once only).
final class LogCapture: Sendable {
    /// One captured line.
    struct Line: Sendable, CustomStringConvertible {
        let level: Logger.Level
        let message: String
        /// Handler metadata merged with the call's, each value rendered.
        let metadata: [String: String]

        /// The message and every metadata key and value, as one text to search.
        var rendered: String {
            ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }

        var description: String { "\(level) \(rendered)" }
    }

    private let storage = Mutex<[Line]>([])

    /// Everything captured so far.
    var lines: [Line] { storage.withLock { $0 } }

    /// A logger at `level` whose lines this capture keeps.
    func logger(level: Logger.Level, label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: Line) {
        storage.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var merged = metadata
            merged.merge(metadataProvider?.get() ?? [:]) { _, new in new }
            merged.merge(event.metadata ?? [:]) { _, new in new }
            capture.append(Line(
                level: event.level, message: event.message.description,
                metadata: merged.mapValues { $0.description }))
        }
    }
}
