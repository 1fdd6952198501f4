extension RequestStateMachine {
    /// What one event returns: its actions, in order. Most events return one action or none —
    /// the send of a hop, the completion — and those are held in the value itself; only an event
    /// that returns several (a monitor's notice with the action, a retry's timer) has an array.
    /// An array per event cost an allocation and its release twice per request.
    enum Actions: RandomAccessCollection {
        /// No action.
        case none
        /// One action.
        case one(Action)
        /// Two or more, in order.
        case many([Action])

        /// No action.
        init() { self = .none }

        /// `action` alone.
        init(_ action: Action) { self = .one(action) }

        var startIndex: Int { 0 }

        var endIndex: Int {
            switch self {
            case .none: 0
            case .one: 1
            case .many(let actions): actions.count
            }
        }

        subscript(position: Int) -> Action {
            switch self {
            case .none: preconditionFailure("no action at \(position)")
            case .one(let action): action
            case .many(let actions): actions[position]
            }
        }

        /// Adds `action` after the others.
        mutating func append(_ action: Action) {
            switch self {
            case .none: self = .one(action)
            case .one(let first): self = .many([first, action])
            case .many(var actions):
                self = .none
                actions.append(action)
                self = .many(actions)
            }
        }

        /// These actions, then `later`: `later` itself when these are none (a notice no monitor
        /// watches, the common case).
        func then(_ later: Actions) -> Actions {
            switch (self, later) {
            case (.none, _): later
            case (_, .none): self
            default: .many(Array(self) + Array(later))
            }
        }
    }
}
