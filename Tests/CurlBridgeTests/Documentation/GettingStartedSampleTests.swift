import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Synchronization
import Testing

// The samples of the three Getting Started articles (GettingStartedBlocking.md,
// GettingStartedAsync.md, GettingStartedCallbacks.md), run against the embedded server. Only
// public API: this file imports CurlBridge without @testable.

@Suite(.hangGuard)
struct GettingStartedBlockingSampleTests {
    @Test func sendDecodeAndPostFromAWorkerThread() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let client = BlockingClient(transport: transport)
        let outcome = SampleOutcome<User>()
        let show: @Sendable (User) -> Void = { outcome.succeed($0) }
        let report: @Sendable (RequestError) -> Void = { outcome.fail($0) }

        let worker = Thread {
            do throws(RequestError) {
                let user = try client.send(.get("users/42")).validate().decode(User.self)
                show(user)
            } catch {
                report(error)
            }
        }
        worker.start()
        #expect(try await outcome.value().get() == User(id: 42, name: "CurlBridge"))

        let posted = await onWorkerThread {
            Result { () throws(RequestError) in
                let created = try client.send(.post("users").json(NewUser(name: "Ada"))).validate()
                return created
            }
        }
        let echo = try posted.get().decode(EchoReply.self)
        #expect(echo.method == "POST")
        #expect(try JSONDecoder().decode(NewUser.self, from: echo.bodyData).name == "Ada")
    }

    @Test func errorsAreOneTypedRequestError() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let client = BlockingClient(transport: transport)
        let handled = await onWorkerThread { () -> String in
            var handledAs = ""
            let moveToWorkerThread = { handledAs = "worker" }
            let showOffline = { handledAs = "offline" }
            let showServerError = { (status: Int?) in handledAs = "status \(status ?? 0)" }
            let report = { (error: RequestError) in handledAs = "other \(error.code)" }

            do throws(RequestError) {
                let missing = try client.send(.get("missing")).validate()
                _ = missing
            } catch {
                switch error.code {
                case .blockingRefused: moveToWorkerThread()
                case .hostNotFound, .connectFailed, .connectTimedOut: showOffline()
                case .unacceptableStatus: showServerError(error.response?.status.code)
                default: report(error)
                }
            }
            return handledAs
        }
        #expect(handled == "status 404")
    }

    @Test func cancelFromAnotherThread() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let client = BlockingClient(transport: transport)
        let canceller = TransferCanceller()
        // Cancelling before the request starts cancels it as soon as it does: whichever thread
        // wins, the outcome is the same.
        Thread { canceller.cancel() }.start()
        let outcome = await onWorkerThread {
            Result { () throws(RequestError) in
                let slow = try client.send(.get("reports/slow").timeout(total: .seconds(60)), cancellation: canceller)
                return slow
            }
        }
        #expect(outcome.failure?.code == .cancelled)
    }

    /// The sample's lines, from a worker thread: the main thread itself is refused or allowed in
    /// a child process (CurlBridgeProbe, run by BlockingGuardTests), where it is the real one.
    @Test func clientAllowingTheMainThreadSends() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let outcome = await onWorkerThread {
            Result { () throws(RequestError) in
                let tool = BlockingClient(transport: transport, policy: .init(allowsMainThread: true))
                let response = try tool.send(.get("users/42"))
                return response
            }
        }
        #expect(try outcome.get().status == .ok)
    }

    @Test func downloadWithProgressAndStreamWithAReader() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let client = BlockingClient(transport: transport)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("report.pdf")
        let fractions = Mutex<[Double]>([])
        let showProgress: @Sendable (Double) -> Void = { value in fractions.withLock { $0.append(value) } }
        let received = Mutex(0)
        let consume: @Sendable (Data) -> Void = { chunk in received.withLock { $0 += chunk.count } }

        let outcome = await onWorkerThread {
            Result { () throws(RequestError) in
                let file = try client.download(.get("files/report.pdf"), to: destination) { progress in
                    showProgress(progress.fractionReceived ?? 0)
                }
                let streamed = try client.stream(.get("events"))
                while let chunk = try streamed.read() {
                    consume(chunk)
                }
                return file
            }
        }
        let file = try outcome.get()
        #expect(file.bytesWritten == 65536)
        #expect(try Data(contentsOf: destination) == resourceBytes(count: 65536))
        #expect(fractions.withLock { $0.last } == 1)
        #expect(received.withLock { $0 } == 262_144)
    }
}

@Suite(.hangGuard)
struct GettingStartedAsyncSampleTests {
    @Test func sendDecodeAndPost() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let client = AsyncClient(transport: transport)
        let outcome = SampleOutcome<User>()
        let show: @Sendable (User) -> Void = { outcome.succeed($0) }
        let report: @Sendable (RequestError) -> Void = { outcome.fail($0) }

        do throws(RequestError) {
            let user = try await client.send(.get("users/42")).validate().decode(User.self)
            show(user)
        } catch {
            report(error)
        }
        #expect(try await outcome.value().get() == User(id: 42, name: "CurlBridge"))

        let created = try await client.send(.post("users").json(NewUser(name: "Ada"))).validate()
        #expect(try created.decode(EchoReply.self).method == "POST")
    }

    @Test func cancellingTheTaskCancelsTheTransfer() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let client = AsyncClient(transport: transport)

        let request = Task { try await client.send(.get("reports/slow")) }
        request.cancel()

        let error = await #expect(throws: RequestError.self) { try await request.value }
        #expect(error?.code == .cancelled)
    }

    @Test func timeoutsStreamingAndProgress() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let client = AsyncClient(transport: transport)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("report.pdf")
        let fractions = Mutex<[Double]>([])
        let showProgress: @Sendable (Double) -> Void = { value in fractions.withLock { $0.append(value) } }
        var received = 0
        let consume = { (chunk: Data) in received += chunk.count }

        let user = try await client.send(.get("users/42").timeout(connect: .seconds(5), total: .seconds(30)))
        #expect(user.status == .ok)

        let streamed = try await client.stream(.get("events"))
        for try await chunk in streamed.body {
            consume(chunk)
        }
        #expect(received == 262_144)

        let file = try await client.download(.get("files/report.pdf"), to: destination) { progress in
            showProgress(progress.fractionReceived ?? 0)
        }
        #expect(file.bytesWritten == 65536)
        #expect(fractions.withLock { $0.last } == 1)
    }
}

extension GettingStartedAsyncSampleTests {
    @Test func awaitOnTheTransportsExecutor() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let client = AsyncClient(transport: transport)
        let ids = [42, 42, 42]

        let users = try await withTaskExecutorPreference(transport.executor) {
            var users: [User] = []
            for id in ids {
                users.append(try await client.send(.get("users/\(id)")).decode(User.self))
            }
            return users
        }
        #expect(users == Array(repeating: User(id: 42, name: "CurlBridge"), count: 3))
    }
}

@Suite(.hangGuard)
struct GettingStartedCallbackSampleTests {
    @Test func sendOnAQueueOfYourChoice() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let legacy = CallbackClient(transport: transport)
        let networkQueue = DispatchQueue(label: "app.network")
        let outcome = SampleOutcome<User>()
        let show: @Sendable (User) -> Void = { outcome.succeed($0) }
        let report: @Sendable (RequestError) -> Void = { outcome.fail($0) }

        let task = legacy.send(.get("users/42"), queue: networkQueue) { result in
            do throws(RequestError) {
                let user = try result.get().validate().decode(User.self)
                show(user)
            } catch {
                report(error)
            }
        }
        #expect(try await outcome.value().get() == User(id: 42, name: "CurlBridge"))
        task.cancel()  // after the completion ran: nothing happens, and no second completion
    }

    @Test func cancelledRequestCompletesOnceWithCancelled() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let legacy = CallbackClient(transport: transport)
        let outcome = SampleOutcome<Response>()
        let finish: @Sendable (Result<Response, RequestError>) -> Void = { result in
            switch result {
            case .success(let response): outcome.succeed(response)
            case .failure(let error): outcome.fail(error)
            }
        }

        let slow = legacy.send(.get("reports/slow")) { result in
            finish(result)
        }
        slow.cancel()

        #expect(try await outcome.value().failure?.code == .cancelled)
    }

    @Test func streamLikeADataDelegate() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let legacy = CallbackClient(transport: transport)
        let status = Mutex<HTTPResponse.Status?>(nil)
        let prepare: @Sendable (HTTPResponse.Status) -> Void = { value in status.withLock { $0 = value } }
        let received = Mutex(0)
        let consume: @Sendable (Data) -> Void = { chunk in received.withLock { $0 += chunk.count } }
        let outcome = SampleOutcome<Response>()
        let finish: @Sendable (Result<Response, RequestError>) -> Void = { result in
            switch result {
            case .success(let response): outcome.succeed(response)
            case .failure(let error): outcome.fail(error)
            }
        }

        let playback = legacy.stream(.get("events"), onResponse: { head in
            prepare(head.status)
        }, onData: { chunk in
            consume(chunk)
        }, onComplete: { result in
            finish(result)
        })

        #expect(try await outcome.value().get().status == .ok)
        #expect(status.withLock { $0 } == .ok)
        #expect(received.withLock { $0 } == 262_144)
        playback.cancel()  // after the end: nothing more is delivered
    }
}
