import CurlBridge
import CurlBridgeFoundation
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

// The "after" samples of MigratingFromNSURLSessionAndAFNetworking.md, run against the embedded
// server. Only public API: this file imports CurlBridge without @testable.

@Suite(.hangGuard)
struct MigrationSampleTests {
    @Test func dataTaskBecomesSend() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let legacy = CallbackClient(transport: transport)
        let outcome = SampleOutcome<User>()
        let show: @Sendable (User) -> Void = { outcome.succeed($0) }
        let report: @Sendable (RequestError) -> Void = { outcome.fail($0) }

        let task = legacy.send(.get("users/42")) { result in
            do throws(RequestError) {
                let user = try result.get().validate().decode(User.self)
                show(user)
            } catch {
                report(error)
            }
        }
        #expect(try await outcome.value().get() == User(id: 42, name: "CurlBridge"))
        task.cancel()
    }

    @Test func downloadTaskBecomesDownload() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let legacy = CallbackClient(transport: transport)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("report.pdf")
        let fractions = Mutex<[Double]>([])
        let showProgress: @Sendable (Double) -> Void = { value in fractions.withLock { $0.append(value) } }
        let outcome = SampleOutcome<DownloadResponse>()
        let show: @Sendable (DownloadResponse) -> Void = { outcome.succeed($0) }
        let report: @Sendable (RequestError) -> Void = { outcome.fail($0) }

        let download = legacy.download(.get("files/report.pdf"), to: destination, progress: { progress in
            showProgress(progress.fractionReceived ?? 0)
        }) { result in
            switch result {
            case .success(let file): show(file)
            case .failure(let error): report(error)
            }
        }

        let file = try await outcome.value().get()
        #expect(file.fileURL == destination && file.bytesWritten == 65536)
        #expect(try Data(contentsOf: destination) == resourceBytes(count: 65536))
        #expect(fractions.withLock { $0.last } == 1)
        download.cancel()  // after the completion: nothing happens
    }

    @Test func uploadTaskFromFileBecomesUpload() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let legacy = CallbackClient(transport: transport)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let photo = scratch.file("photo.jpg")
        try resourceBytes(count: 100_000).write(to: photo)
        let outcome = SampleOutcome<Response>()
        let show: @Sendable (Response) -> Void = { outcome.succeed($0) }
        let report: @Sendable (RequestError) -> Void = { outcome.fail($0) }

        let upload = legacy.upload(.post("uploads"), fromFile: photo, contentType: "image/jpeg") { result in
            switch result {
            case .success(let response): show(response)
            case .failure(let error): report(error)
            }
        }

        let sink = try await outcome.value().get().decode(UploadSinkReply.self)
        #expect(sink.length == 100_000 && sink.sha256 == sha256Hex(resourceBytes(count: 100_000)))
        #expect(sink.contentLength == "100000")
        upload.cancel()  // after the completion: nothing happens
    }

    @Test func resumeDataAcrossACancel() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let legacy = CallbackClient(transport: transport)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("big.iso")
        let fractions = Mutex<[Double]>([])
        let showProgress: @Sendable (Double) -> Void = { value in fractions.withLock { $0.append(value) } }
        let stored = Mutex<Data?>(nil)
        let save: @Sendable (ResumeData?) -> Void = { resumeData in
            stored.withLock { $0 = try? JSONEncoder().encode(resumeData) }
        }

        // The first response stalls after 64 KiB: cancel once bytes are on disk.
        do {
            let outcome = SampleOutcome<DownloadResponse>()
            let show: @Sendable (DownloadResponse) -> Void = { outcome.succeed($0) }
            let report: @Sendable (RequestError) -> Void = { outcome.fail($0) }
            let download = legacy.download(.get("files/big.iso"), to: destination, progress: { progress in
                showProgress(progress.fractionReceived ?? 0)
            }) { result in
                switch result {
                case .success(let file): show(file)
                case .failure(let error): report(error)
                }
            }
            try await waitFor("some bytes of the download") { fractions.withLock { ($0.last ?? 0) > 0 } }
            download.cancel { resumeData in
                save(resumeData)
            }
            #expect(try await outcome.value().failure?.code == .cancelled)
        }

        // Later, maybe in another process: ResumeData is Codable.
        do {
            let saved = try JSONDecoder().decode(ResumeData.self, from: try #require(stored.withLock { $0 }))
            let outcome = SampleOutcome<DownloadResponse>()
            let show: @Sendable (DownloadResponse) -> Void = { outcome.succeed($0) }
            let report: @Sendable (RequestError) -> Void = { outcome.fail($0) }
            legacy.download(.get("files/big.iso"), to: destination, resumingFrom: saved) { result in
                switch result {
                case .success(let file): show(file)
                case .failure(let error): report(error)
                }
            }
            let file = try await outcome.value().get()
            #expect(file.resumedFromOffset > 0)
            #expect(try Data(contentsOf: destination) == resourceBytes(count: 1_048_576))
        }
    }

    @Test func semaphoreWrapperBecomesABlockingCall() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let outcome = await onWorkerThread {
            Result { () throws(RequestError) in
                let blocking = BlockingClient(transport: transport)
                let data = try blocking.send(.get("users/42")).validate().body
                return data
            }
        }
        #expect(try JSONDecoder().decode(User.self, from: outcome.get()).id == 42)
    }

    @Test func sessionManagerGetAndPost() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let client = AsyncClient(transport: transport)

        let found = try await client.send(.get("search").parameters(["q": "swift"])).validate().json()
        let created = try await client.send(.post("users").parameters(["name": "Ada"])).validate().json()

        let search = try #require(found as? [String: Any])
        #expect(search["method"] as? String == "GET" && search["query"] as? String == "q=swift")
        let post = try #require(created as? [String: Any])
        let body = Data(base64Encoded: try #require(post["body"] as? String)) ?? Data()
        #expect(post["method"] as? String == "POST" && String(decoding: body, as: UTF8.self) == "name=Ada")
    }

    @Test func requestAndResponseSerializers() async throws {
        let configuration = DocumentationServer.configuration(try await Fixture.server())
        let transport = Transport(configuration: configuration)
        let client = AsyncClient(transport: transport)
        struct Query: Encodable { var tags: [String]; var page: Int }

        let encoder = URLEncodedFormEncoder(arrayEncoding: .noBrackets)
        let request = Request.get("search")
            .parameters(Query(tags: ["linux", "http"], page: 2), encoder: encoder)
            .header("X-Client", "legacy-app")
            .timeout(idle: .seconds(30))
        let echoed = try await client.send(request).validate().decode(EchoReply.self)
        let user = try await client.send(.get("users/42")).validate(contentTypes: ["application/json", "text/json", "text/javascript"]).decode(User.self)
        let posted = try await client.send(.post("users").json(NewUser(name: "Ada"))).validate()

        #expect(echoed.query == "page=2&tags=linux&tags=http")
        #expect(echoed.header("x-client") == ["legacy-app"])
        #expect(user.name == "CurlBridge")
        #expect(try posted.decode(EchoReply.self).header("content-type") == ["application/json"])
    }

    @Test func securityPolicyBecomesTLSConfiguration() async throws {
        let server = try await Fixture.server()
        var configuration = DocumentationServer.configuration(server, tls: true)
        let corporateCA = Fixture.testCA
        let currentKeyPin = TestServer.serverPublicKeyPin
        let backupKeyPin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()

        let pins: Pinning = try .publicKeys([currentKeyPin, backupKeyPin])
        var tls = TLSConfiguration(trustRoots: .systemAdding(corporateCA))
        tls.pins["127.0.0.1"] = pins
        configuration.tls = tls

        let pinned = try await AsyncClient(transport: Transport(configuration: configuration)).send(.get("users/42"))
        #expect(pinned.status == .ok)

        configuration.tls.pins["127.0.0.1"] = try .publicKeys([backupKeyPin])
        let error = await #expect(throws: RequestError.self) {
            try await AsyncClient(transport: Transport(configuration: configuration)).send(.get("users/42"))
        }
        #expect(error?.code == .pinningMismatch)
    }

    @Test func sessionConfigurationProperties() async throws {
        let server = try await Fixture.server()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let cookieFile = scratch.file("cookies.txt")
        let baseURL = server.httpURL

        var configuration = Configuration(baseURL: baseURL)
        configuration.timeouts = Timeouts(connect: .seconds(10), idle: .seconds(30), total: .seconds(300))
        configuration.defaultHeaders[.accept] = "application/json"
        configuration.connectionLimits.perHost = 4
        configuration.cookies = .persistent(file: cookieFile)
        configuration.proxy = .through(.http(host: "proxy.corp", port: 3128))

        #expect(configuration.proxy.httpProxy?.host == "proxy.corp" && configuration.proxy.httpsProxy?.port == 3128)
        // Sent directly here: the proxy is not part of the embedded server (ProxyTests cover it).
        configuration.proxy = .direct
        let transport = Transport(configuration: configuration)
        let echoed = try await AsyncClient(transport: transport).send(.get("echo")).decode(EchoReply.self)
        #expect(echoed.header("accept") == ["application/json"])
        #expect(echoed.header("user-agent").first?.hasPrefix("CurlBridge/") == true)
        #expect(transport.cookies != nil)
        await transport.shutdown()  // saves the cookie file while its directory still exists
    }
}
