@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization

extension InterleavingRun {
    /// The three clients over the run's transport.
    typealias Clients = (blocking: BlockingClient, async: AsyncClient, callback: CallbackClient)

    /// Starts the request in its style and verb; registers its cancel; `finish` gets the
    /// caller's outcome and any defect of a successful one.
    func start(on clients: Clients, record: Record, finish: @escaping @Sendable (String, String?) -> Void) {
        switch schedule.style {
        case .async: startAsync(clients.async, record: record, finish: finish)
        case .callback: startCallback(clients.callback, record: record, finish: finish)
        case .blocking: startBlocking(clients.blocking, record: record, finish: finish)
        }
    }

    private var destination: URL { environment.scratch.appendingPathComponent("download-\(schedule.index)") }

    private func startAsync(_ client: AsyncClient, record: Record, finish: @escaping @Sendable (String, String?) -> Void) {
        let (request, verb, file, destination) = (self.request, schedule.verb, environment.uploadFile, self.destination)
        let task = Task {
            do throws(RequestError) {
                switch verb {
                case .send:
                    finish(String(try await client.send(request).status.code), nil)
                case .upload:
                    let response = try await client.upload(request, fromFile: file)
                    finish(String(response.status.code), Self.uploadDefect(response))
                case .download:
                    finish(String(try await client.download(request, to: destination).status.code), nil)
                case .stream:
                    let streamed = try await client.stream(request)
                    var received = 0
                    for try await chunk in streamed.body { received += chunk.count }
                    finish(String(streamed.status.code), Self.lengthDefect(streamed.headerFields[.contentLength], received))
                }
            } catch {
                finish(error.code.description, nil)
            }
        }
        record.cancel.register { task.cancel() }
    }

    private func startCallback(_ client: CallbackClient, record: Record, finish: @escaping @Sendable (String, String?) -> Void) {
        let outcome: @Sendable (Result<Response, RequestError>) -> Void = { result in
            finish(Self.outcome(result.map { $0.status.code }), (try? result.get()).flatMap(Self.uploadDefect))
        }
        switch schedule.verb {
        case .send:
            let task = client.send(request, completion: outcome)
            record.cancel.register { task.cancel() }
        case .upload:
            let task = client.upload(request, fromFile: environment.uploadFile, completion: outcome)
            record.cancel.register { task.cancel() }
        case .download:
            let task = client.download(request, to: destination) { finish(Self.outcome($0.map { $0.status.code }), nil) }
            record.cancel.register { task.cancel() }
        case .stream:
            let received = PosixLock(0)
            let task = client.stream(request, onResponse: { _ in }, onData: { chunk in received.withLock { $0 += chunk.count } }) { result in
                let defect = (try? result.get()).flatMap { Self.lengthDefect($0.headerFields[.contentLength], received.withLock { $0 }) }
                finish(Self.outcome(result.map { $0.status.code }), defect)
            }
            record.cancel.register { task.cancel() }
        }
    }

    private func startBlocking(_ client: BlockingClient, record: Record, finish: @escaping @Sendable (String, String?) -> Void) {
        let (request, verb, file, destination) = (self.request, schedule.verb, environment.uploadFile, self.destination)
        let canceller = TransferCanceller()
        if verb != .stream { record.cancel.register { canceller.cancel() } }
        Thread.detachNewThread {
            do throws(RequestError) {
                switch verb {
                case .send:
                    finish(String(try client.send(request, cancellation: canceller).status.code), nil)
                case .upload:
                    let response = try client.upload(request, fromFile: file, cancellation: canceller)
                    finish(String(response.status.code), Self.uploadDefect(response))
                case .download:
                    finish(String(try client.download(request, to: destination, cancellation: canceller).status.code), nil)
                case .stream:
                    let reader = try client.stream(request)
                    var received = 0
                    while let chunk = try reader.read() { received += chunk.count }
                    finish(String(reader.head.status.code), Self.lengthDefect(reader.head.headerFields[.contentLength], received))
                }
            } catch {
                finish(error.code.description, nil)
            }
        }
    }

    /// What is wrong with an upload's `200`, if anything: the sink must have taken the whole file.
    static func uploadDefect(_ response: Response) -> String? {
        guard let reply = try? response.decode(UploadSinkReply.self) else { return nil }  // another route's answer
        return reply.length == InterleavingRun.uploadSize ? nil : "the sink took \(reply.length) of \(InterleavingRun.uploadSize) bytes"
    }

    /// What is wrong with a streamed body of `received` bytes, if anything.
    static func lengthDefect(_ contentLength: String?, _ received: Int) -> String? {
        guard let declared = contentLength.flatMap(Int.init), declared != received else { return nil }
        return "the stream delivered \(received) of \(declared) bytes"
    }

    /// The size of the upload file.
    static let uploadSize = 64 << 10
}
