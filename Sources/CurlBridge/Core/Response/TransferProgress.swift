/// How far a transfer has come: body bytes received and sent, and how many are expected.
///
/// Progress is reported at most ``minimumInterval`` apart (about 20 updates a second), and once
/// more at completion with the final counts. Downloads that resume count the bytes already on
/// disk, as NSURLSession's `totalBytesWritten` does.
public struct TransferProgress: Sendable, Equatable {
    /// The shortest time between two reports, except the final one: 50 ms.
    public static let minimumInterval: Duration = .milliseconds(50)

    /// Body bytes received so far.
    public var bytesReceived: Int64
    /// Body bytes the response announced (`Content-Length`), `nil` while unknown.
    public var expectedBytesToReceive: Int64?
    /// Request body bytes sent so far.
    public var bytesSent: Int64
    /// Request body bytes to send, `nil` when the length is unknown (a stream without a length).
    public var expectedBytesToSend: Int64?

    /// Creates a progress value.
    public init(bytesReceived: Int64, expectedBytesToReceive: Int64?, bytesSent: Int64, expectedBytesToSend: Int64?) {
        self.bytesReceived = bytesReceived
        self.expectedBytesToReceive = expectedBytesToReceive
        self.bytesSent = bytesSent
        self.expectedBytesToSend = expectedBytesToSend
    }

    /// Progress from curl's counters, where a total of 0 or less means unknown.
    init(curlReceived received: Int64, expectedToReceive: Int64, sent: Int64, expectedToSend: Int64) {
        self.init(
            bytesReceived: received, expectedBytesToReceive: expectedToReceive > 0 ? expectedToReceive : nil,
            bytesSent: sent, expectedBytesToSend: expectedToSend > 0 ? expectedToSend : nil)
    }

    /// The fraction of the download done, from 0 to 1, or `nil` when its length is unknown.
    public var fractionReceived: Double? {
        guard let expected = expectedBytesToReceive, expected > 0 else { return nil }
        return min(1, Double(bytesReceived) / Double(expected))
    }

    /// The fraction of the upload done, from 0 to 1, or `nil` when its length is unknown.
    public var fractionSent: Double? {
        guard let expected = expectedBytesToSend, expected > 0 else { return nil }
        return min(1, Double(bytesSent) / Double(expected))
    }
}
