extension RequestStateMachine {
    /// Something the executor does for the machine, in the order returned. The cases that carry a
    /// response, an event or several values are boxed (`indirect`): an action is then a few
    /// words, and the ``Actions`` the machine returns copy words, not whole errors. A
    /// ``Request`` is one reference already, so the one case of every hop, `send`, is not boxed.
    enum Action {
        /// Prepare `request` and hand it to a transfer (then report ``RequestStateMachine/sending(_:at:)``
        /// or ``RequestStateMachine/sendFailed(_:at:)``).
        case send(Request, Send)
        /// Run the adapters on `request` in a task; report ``RequestStateMachine/adapted(_:at:)``.
        indirect case runAdapters(Request, AttemptContext)
        /// Ask the retriers about `outcome` in a task; report ``RequestStateMachine/retriersDecided(_:at:)``.
        indirect case runRetriers(AttemptOutcome, Request, AttemptContext)
        /// Cancel the task running adapters or retriers.
        case cancelInterceptors
        /// Count the request against the transport's retry budget.
        case countRequestInBudget
        /// Take one retry from the transport's budget; report ``RequestStateMachine/budgetAnswered(granted:at:)``.
        case withdrawRetryFromBudget
        /// Report ``Timer/deadline`` after this long (the total timeout, while interceptors run).
        case armDeadline(after: Duration)
        /// Report `timer` after `delay`.
        case wait(Duration, Timer)
        /// Stop the running transfer without reporting its end; report its final progress to the
        /// consumer first if `reportsFinalProgress`.
        case stopTransfer(reportsFinalProgress: Bool)
        /// Tell the monitors and the request's log.
        indirect case notify(RequestEvent)
        /// Report the outcome to the caller — after releasing `release`, a held failure response,
        /// to the body consumer: its refusal, if it refuses, is the outcome instead. Returned once.
        indirect case complete(Result<Response, RequestError>, release: HeldResponse?, duration: Duration)
    }

    /// Why a request goes to a transfer.
    enum Send: Equatable {
        /// The first hop of attempt `n`.
        case attempt(Int)
        /// The next hop of a redirect chain.
        case hop
        /// The same hop again, after its HTTP/2 session closed before answering.
        case resend
    }
}
