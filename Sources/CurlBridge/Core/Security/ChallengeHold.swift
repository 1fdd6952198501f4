/// A `401` head held back while curl may still answer its authentication challenge (Digest,
/// NTLM, a credential it sends only when asked) and read another response in the same transfer.
/// The head is delivered when its body starts or the transfer ends — curl gave up — and dropped
/// when another status line comes: curl answered, so that head was not the final one.
struct ChallengeHold {
    /// The head held, if any.
    private(set) var head: ResponseHead?

    /// Whether a final head with `status` must wait: a `401` that curl may answer.
    static func holds(status: Int, curlAnswersChallenges: Bool) -> Bool {
        status == 401 && curlAnswersChallenges
    }

    /// Holds `head`.
    mutating func hold(_ head: ResponseHead) {
        self.head = head
    }

    /// A status line arrived in the same transfer: curl answered the challenge.
    mutating func statusLineArrived() {
        head = nil
    }

    /// The held head, now due for delivery; the hold is empty afterwards.
    mutating func release() -> ResponseHead? {
        defer { head = nil }
        return head
    }
}
