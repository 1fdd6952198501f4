/// A failure of `cb` itself, before or around a request: a message for stderr and the exit status.
struct CommandFailure: Error {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
