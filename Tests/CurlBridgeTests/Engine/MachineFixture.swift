@testable import CurlBridge
import Foundation
import HTTPTypes

/// Builds ``RequestStateMachine``s, events and the names their states and actions are compared by.
enum MachineFixture {
    static let url = "http://origin.test/a"

    /// A machine's setup; by default a plain GET with three attempts and no backoff.
    static func setup(
        _ request: Request = .get(url), adapters: Bool = false, retriers: Bool = false,
        consumer: RequestStateMachine.Consumer = .init(), observed: Bool = false,
        retries: RetryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .zero), deadline: UInt64? = nil,
        readings: RequestStateMachine.Readings = .fixed(date: wallClock, jitter: 0.5)
    ) -> RequestStateMachine.Setup {
        RequestStateMachine.Setup(
            id: 7, original: request,
            policies: .init(redirects: RedirectPolicy(), retries: retries, defaultHeaders: HTTPFields(), readings: readings),
            hasAdapters: adapters, hasRetriers: retriers, consumer: consumer, isObserved: observed, startedAt: 0,
            deadline: deadline)
    }

    /// The wall clock the machines read, unless a test gives another.
    static let wallClock = Date(timeIntervalSince1970: 1_000_000)

    /// The moment `milliseconds` after the request started.
    static func at(_ milliseconds: UInt64) -> RequestStateMachine.Moment {
        .init(now: milliseconds * 1_000_000)
    }

    static let now = at(1)

    /// A stream consumer: head, body and progress.
    static let streaming = RequestStateMachine.Consumer(takesHead: true, takesBody: true, takesProgress: true)

    static func head(_ status: Int, _ fields: [(HTTPField.Name, String)] = []) -> ResponseHead {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields[name] = value }
        return ResponseHead(status: .init(code: status), headerFields: headerFields, httpVersion: .http1_1, url: url)
    }

    static func response(_ status: Int, _ fields: [(HTTPField.Name, String)] = [], body: String = "") -> Response {
        Response(
            status: .init(code: status), headerFields: head(status, fields).headerFields, body: Data(body.utf8), url: url,
            httpVersion: .http1_1,
            metrics: TransferMetrics(
                nameLookup: .zero, connect: .zero, tlsHandshake: .zero, preTransfer: .zero, firstByte: .zero, total: .zero,
                bytesSent: 0, bytesReceived: 0, headerBytes: 0, reusedConnection: false, localPort: 0, remoteAddress: "", remotePort: 0))
    }

    static let redirect = head(302, [(.location, "/b")])

    static func failure(_ code: RequestError.Code) -> RequestError {
        RequestError(code, "test", method: .get, url: url)
    }

    static let target = RequestStateMachine.Target(method: .get, url: url)
}

/// A state by name: what the tests compare.
enum StateName: String, CaseIterable, CustomStringConvertible {
    case initial, adapting, plain, open, draining, holding, delivering, decidingRetry, awaitingBudget, waitingToRetry, finished

    init(_ state: RequestStateMachine.State) {
        switch state {
        case .initial: self = .initial
        case .adapting: self = .adapting
        case .plain: self = .plain
        case .running(let hop):
            switch hop.phase {
            case .open: self = .open
            case .draining: self = .draining
            case .holding: self = .holding
            case .delivering: self = .delivering
            }
        case .decidingRetry: self = .decidingRetry
        case .awaitingBudget: self = .awaitingBudget
        case .waitingToRetry: self = .waitingToRetry
        case .finished: self = .finished
        }
    }

    var description: String { rawValue }
}

/// An action by kind, with what a test checks of it.
enum ActionName: Equatable, CustomStringConvertible {
    case send(RequestStateMachine.Send), runAdapters, runRetriers, cancelInterceptors, countRequestInBudget
    case withdrawRetryFromBudget, armDeadline, wait(RequestStateMachine.Timer), stopTransfer, notify
    /// The outcome: the status, or the failure's code.
    case complete(status: Int?, code: RequestError.Code?)

    init(_ action: RequestStateMachine.Action) {
        switch action {
        case .send(_, let kind): self = .send(kind)
        case .runAdapters: self = .runAdapters
        case .runRetriers: self = .runRetriers
        case .cancelInterceptors: self = .cancelInterceptors
        case .countRequestInBudget: self = .countRequestInBudget
        case .withdrawRetryFromBudget: self = .withdrawRetryFromBudget
        case .armDeadline: self = .armDeadline
        case .wait(_, let timer): self = .wait(timer)
        case .stopTransfer: self = .stopTransfer
        case .notify: self = .notify
        case .complete(.success(let response), _, _): self = .complete(status: response.status.code, code: nil)
        case .complete(.failure(let error), _, _): self = .complete(status: nil, code: error.code)
        }
    }

    static func completed(_ status: Int) -> ActionName { .complete(status: status, code: nil) }
    static func failed(_ code: RequestError.Code) -> ActionName { .complete(status: nil, code: code) }

    var description: String {
        switch self {
        case .send(let kind): "send(\(kind))"
        case .runAdapters: "runAdapters"
        case .runRetriers: "runRetriers"
        case .cancelInterceptors: "cancelInterceptors"
        case .countRequestInBudget: "countRequestInBudget"
        case .withdrawRetryFromBudget: "withdrawRetryFromBudget"
        case .armDeadline: "armDeadline"
        case .wait(let timer): "wait(\(timer))"
        case .stopTransfer: "stopTransfer"
        case .notify: "notify"
        case .complete(let status, let code): "complete(\(status.map(String.init) ?? code.map(\.description) ?? "?"))"
        }
    }
}

extension RequestStateMachine.Actions {
    /// The actions by kind.
    var names: [ActionName] { map(ActionName.init) }
}
