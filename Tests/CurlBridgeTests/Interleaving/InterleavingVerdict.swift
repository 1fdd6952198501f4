/// What the interleaving test saw of one schedule's request.
struct InterleavingObservation: Sendable {
    /// Every outcome the caller got (one, if all is well): a status code, or an error code.
    var outcomes: [String] = []
    /// Every outcome the library's event monitor reported (`requestDidComplete`).
    var libraryOutcomes: [String] = []
    /// By when the disruption was made (stamped once it was), in milliseconds after the request
    /// started; `nil` if none was.
    var disruptedAt: Double?
    /// How many of the request's sends reached the server (every hop and attempt).
    var arrivals = 0
    /// What a successful outcome was found to hold that it should not (a body that does not add up).
    var defect: String?
}

/// Whether an observation is right for its schedule: exactly one completion, seen alike by the
/// caller and the library; an outcome the schedule allows — a cancel made before the request
/// could have ended otherwise always wins, and never a later attempt — and the number of sends the
/// server saw.
struct InterleavingVerdict {
    /// The outcomes the schedule allows.
    let allowed: Set<String>
    /// How many sends may have reached the server.
    let arrivals: ClosedRange<Int>

    /// The verdict's expectations for `schedule`, disrupted `disruptedAt` milliseconds in.
    init(_ schedule: InterleavingSchedule, disruptedAt: Double?) {
        let ok: Set<String> = ["200"]
        let disruption = schedule.disruption
        let isCancel: Bool
        switch disruption {
        case .cancel, .cancelAll, .stop: isCancel = true
        case .none, .shutdown, .totalTimeout: isCancel = false
        }
        let isShutdown: Bool
        if case .shutdown = disruption { isShutdown = true } else { isShutdown = false }
        let hops = schedule.scenario == .redirect ? 2 : 1
        switch schedule.scenario {
        case .quick, .redirect:
            // A cancel races the completion; a shutdown lets the request (and its hops) finish.
            allowed = isCancel ? ok.union(["cancelled"]) : ok
            arrivals = isCancel ? 0...hops : hops...hops
        case .retryQuick:
            switch disruption {
            case .none: (allowed, arrivals) = (ok, 2...2)
            case .shutdown: (allowed, arrivals) = (ok.union(["transportShutDown"]), 1...2)
            default: (allowed, arrivals) = (ok.union(["cancelled"]), 0...2)
            }
        case .blocked:
            // Nothing comes for a minute: the cancel (made well before) or the timeout ends it.
            allowed = isCancel ? ["cancelled"] : ["totalTimedOut"]
            arrivals = 0...1
        case .retryWait:
            // The second attempt is a minute away: a cancel or a shutdown ends the wait, and no
            // second send ever reaches the server.
            if isCancel {
                allowed = ["cancelled"]
            } else if isShutdown {
                allowed = ["transportShutDown"]
            } else {
                // The total timeout is shorter than the wait: the 503 is the outcome (a download
                // refuses it), unless the timeout comes first.
                allowed = ["503", "unacceptableStatus", "totalTimedOut"]
            }
            arrivals = 0...1
        case .stalled:
            // A cancel made before the idle limit could pass wins; after it, either may.
            if isCancel, let disruptedAt, disruptedAt < Double(schedule.idleTimeout) {
                allowed = ["cancelled"]
            } else {
                allowed = isCancel ? ["cancelled", "idleTimedOut"] : ["idleTimedOut"]
            }
            arrivals = 0...1
        }
    }

    /// What is wrong with `observation`, if anything.
    func problems(in observation: InterleavingObservation, of schedule: InterleavingSchedule) -> [String] {
        var problems: [String] = []
        if observation.outcomes.count != 1 { problems.append("caller completions \(observation.outcomes)") }
        if observation.libraryOutcomes.count != 1 { problems.append("library completions \(observation.libraryOutcomes)") }
        if let outcome = observation.outcomes.first {
            if !allowed.contains(outcome) { problems.append("outcome \(outcome), allowed \(allowed.sorted())") }
            if outcome == "transportShutDown", schedule.scenario == .retryQuick, observation.arrivals > 1 {
                problems.append("a second attempt was sent before the shutdown ended the request")
            }
            if let library = observation.libraryOutcomes.first, !Self.agree(caller: outcome, library: library, schedule) {
                problems.append("the caller got \(outcome), the library reported \(library)")
            }
        }
        if !arrivals.contains(observation.arrivals) {
            problems.append("the server saw \(observation.arrivals) sends, allowed \(arrivals)")
        }
        if let defect = observation.defect { problems.append(defect) }
        return problems
    }

    /// Whether the caller's and the library's outcomes tell the same story: a download turns a
    /// status it does not accept into `unacceptableStatus`; a blocking call that gave up waiting
    /// (the timeout plus its margin, on a starved machine) cancels the transfer behind it; a
    /// callback stream cancelled before its end was delivered ends cancelled, however the transfer
    /// ended.
    private static func agree(caller: String, library: String, _ schedule: InterleavingSchedule) -> Bool {
        if caller == library { return true }
        if schedule.verb == .download, caller == "unacceptableStatus", Int(library) != nil { return true }
        if schedule.style == .callback, schedule.verb == .stream, caller == "cancelled" { return true }
        return schedule.style == .blocking && caller == "totalTimedOut" && library == "cancelled"
    }
}
