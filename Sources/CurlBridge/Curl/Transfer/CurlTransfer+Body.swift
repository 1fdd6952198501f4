internal import CCurl

/// The request body a ``CurlTransfer`` sends from our read callback: opened with the transfer,
/// read and rewound for curl, its stream started and closed by the send that owns it.
extension CurlTransfer {
    /// Closes the body file, or stops the body stream's producer; called when the transfer ends.
    func closeBody() {
        if case .stream? = bodyReader, !ownsBodyStream {
            bodyReader = nil
            return
        }
        bodyReader?.close()
        bodyReader = nil
    }

    /// Whether the request's body is a stream, whose producer ``startBodyStream(wake:)`` starts.
    var sendsBodyStream: Bool {
        if case .stream? = bodyReader { true } else { false }
    }

    /// Starts the producer of a streamed request body, if the body is one; `wake` resumes sending
    /// when the stream has bytes again.
    ///
    /// - Throws: ``RequestError/Code/bodyNotRewindable`` when the stream was already sent.
    func startBodyStream(wake: @escaping @Sendable () -> Void) throws(RequestError) {
        guard case .stream(let stream)? = bodyReader else { return }
        ownsBodyStream = stream.start(wake: wake)
        guard ownsBodyStream else {
            throw RequestError(.bodyNotRewindable, "the request's body stream was already sent; a stream can be sent once only")
        }
    }

    /// Copies the next slice of the request body into curl's buffer, or pauses sending until the
    /// body's stream has bytes.
    func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard var reader = bodyReader else { return 0 }
        state.noteActivity(at: now)
        let result = reader.read(into: buffer)
        bodyReader = reader
        switch result {
        case .bytes(let count):
            return count
        case .pause:
            state.pauseSending()
            return ccurl_readfunc_pause
        case .fail(let error):
            state.fail(error)
            return ccurl_readfunc_abort
        }
    }

    /// Moves the upload position when curl must send the body again (a retried connection).
    func rewindBody(to offset: Int64) -> Int32 {
        guard var reader = bodyReader else { return ccurl_seekfunc_fail }
        let rewound = reader.rewind(to: offset)
        bodyReader = reader
        if rewound { return ccurl_seekfunc_ok }
        if case .stream = reader { return ccurl_seekfunc_cantseek }  // curl then fails with CURLE_SEND_FAIL_REWIND
        return ccurl_seekfunc_fail
    }
}
