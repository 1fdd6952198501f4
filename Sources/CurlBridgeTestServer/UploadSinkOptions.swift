import NIOCore

/// The query parameters of `/upload-sink`.
struct UploadSinkOptions {
    /// What the parameters must be, for the `400` when they are not.
    static let requirements =
        "close-after must be an integer in \(Router.byteCounts), close-if-reused 0 or 1, "
        + "and delay an integer in \(Router.milliseconds)"

    /// `close-after`: how many body bytes to take before closing; `nil` (the default) for all.
    let closeAfter: Int?
    /// `close-if-reused=1`: close without answering unless the request is its connection's first.
    let closesIfReused: Bool
    /// `delay`: the pause between the end of the body and the answer (default none).
    let delay: TimeAmount

    /// Reads the options from `parameters`; `nil` if one is malformed or out of range.
    init?(_ parameters: QueryParameters) {
        guard let closeIfReused = Router.integer(parameters["close-if-reused"], in: 0...1, default: 0),
              let delay = Router.integer(parameters["delay"], in: Router.milliseconds, default: 0)
        else { return nil }
        if let closeAfter = parameters["close-after"] {
            guard let bytes = Router.integer(closeAfter, in: Router.byteCounts) else { return nil }
            self.closeAfter = bytes
        } else {
            self.closeAfter = nil
        }
        self.closesIfReused = closeIfReused == 1
        self.delay = .milliseconds(Int64(delay))
    }
}
