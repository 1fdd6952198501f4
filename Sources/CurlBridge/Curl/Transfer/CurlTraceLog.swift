internal import CCurl
import Logging

/// Where one transfer's `CURLOPT_DEBUGFUNCTION` goes: curl's informational text (`* `), the
/// header lines sent (`> `) and received (`< `), redacted, each a `trace` message; of the body,
/// only the size of each piece; of TLS records, nothing.
///
/// Not `Sendable`: called by curl on the transport's queue only, inside `curl_multi_perform`. It
/// reuses its buffers from line to line, so a line costs the one `String` handed to the logger.
final class CurlTraceLog {
    private let logger: Logger
    private let redactor: LogRedactor
    private let requestID: Logger.MetadataValue
    private let textMetadata: Logger.Metadata
    private let sentMetadata: Logger.Metadata
    private let receivedMetadata: Logger.Metadata
    /// The bytes curl handed over, one line after another, and the line in the making.
    private var input: [UInt8] = []
    private var structural: [UInt8] = []
    private var output: [UInt8] = []

    /// The log of transfer `requestID` (the ``RequestLog`` id of its request).
    init(_ trace: TransferTrace, requestID: UInt64) {
        logger = trace.logger
        redactor = trace.redactor
        let id = Logger.MetadataValue.stringConvertible(requestID)
        self.requestID = id
        textMetadata = [RequestLog.Key.requestID: id, Self.infoKey: "text"]
        sentMetadata = [RequestLog.Key.requestID: id, Self.infoKey: "header_out"]
        receivedMetadata = [RequestLog.Key.requestID: id, Self.infoKey: "header_in"]
    }

    /// The metadata key naming what curl reported: `text`, `header_out`, `header_in`, `data_out`, `data_in`.
    static let infoKey = "curlbridge.curl_info"

    /// Logs what curl reported.
    func record(_ type: curl_infotype, _ bytes: UnsafeRawBufferPointer) {
        switch type {
        case CURLINFO_TEXT:
            logLines(bytes, prefix: "* ", metadata: textMetadata, isHeader: false)
        case CURLINFO_HEADER_OUT:
            logLines(bytes, prefix: "> ", metadata: sentMetadata, isHeader: true)
        case CURLINFO_HEADER_IN:
            logLines(bytes, prefix: "< ", metadata: receivedMetadata, isHeader: true)
        case CURLINFO_DATA_OUT, CURLINFO_DATA_IN:
            let sent = type == CURLINFO_DATA_OUT
            logger.trace(sent ? "> body bytes" : "< body bytes", metadata: [
                RequestLog.Key.requestID: requestID, Self.infoKey: sent ? "data_out" : "data_in",
                RequestLog.Key.bytes: .stringConvertible(bytes.count),
            ])
        default:
            break  // TLS records: never logged
        }
    }

    /// Logs each non-empty line of `bytes`, redacted.
    private func logLines(_ bytes: UnsafeRawBufferPointer, prefix: StaticString, metadata: Logger.Metadata, isHeader: Bool) {
        input.removeAll(keepingCapacity: true)
        input.append(contentsOf: bytes)
        var start = input.startIndex
        while start < input.endIndex {
            let end = input[start...].firstIndex(of: UInt8(ascii: "\n")) ?? input.endIndex
            let line = LogRedactor.withoutLineEnd(input[start..<end])
            start = end + 1
            guard !line.isEmpty else { continue }
            structural.removeAll(keepingCapacity: true)
            if isHeader {
                redactor.appendHeaderLine(line, to: &structural)
            } else {
                redactor.appendCurlText(line, to: &structural)
            }
            output.removeAll(keepingCapacity: true)
            output.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
            redactor.appendValues(structural[...], to: &output)
            logger.trace(Logger.Message(stringLiteral: String(decoding: output, as: UTF8.self)), metadata: metadata)
        }
    }
}
