@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// `cb get --queue` with `-u` and `-H` (issue 35, item 10): the server sees them in the run that
/// enqueues and in a run that rejoins after a kill, the state directory never holds them, and
/// neither a download of another origin nor a redirect to one gets them.
@Suite(.hangGuard) struct CbQueueCredentialTests {
    /// The credential forms the issue names.
    enum Form: CaseIterable, Sendable {
        /// `-u user:SECRET`.
        case basic
        /// `-H "Authorization: Bearer SECRET"`.
        case bearer

        /// The command-line arguments that send `secret`.
        func arguments(_ secret: String) -> [String] {
            switch self {
            case .basic: ["-u", "user:\(secret)"]
            case .bearer: ["-H", "Authorization: Bearer \(secret)"]
            }
        }

        /// The `Authorization` value the server must see.
        func authorization(_ secret: String) -> String {
            switch self {
            case .basic: "Basic " + Data("user:\(secret)".utf8).base64EncodedString()
            case .bearer: "Bearer \(secret)"
            }
        }
    }

    @Test(arguments: Form.allCases)
    func aQueuedDownloadSendsTheCredentialsAndTheStateDirectoryHoldsNone(form: Form) async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "s3cret-\(UUID().uuidString)"
        let route = GuardedRoute(server, name: "report.txt", requiring: [("Authorization", form.authorization(secret))])
        let state = directory.appendingPathComponent("state")

        let run = try await Cb().run(
            ["get", "--queue", state.path, "-o", directory.appendingPathComponent("out").path + "/"] + form.arguments(secret)
                + ["\(server.httpURL)\(route.path.dropFirst())"])

        #expect(run.status == 0, "\(run)")
        #expect(route.requests.map { $0.header("Authorization") } == [form.authorization(secret)])
        #expect((try? Data(contentsOf: directory.appendingPathComponent("out/report.txt"))) == route.body)
        #expect(Self.filesHolding([secret, form.authorization(secret)], under: state).isEmpty)
    }

    /// `cb` killed while the server holds its request, then run again with the same arguments:
    /// the download rejoined from the journal sends the credentials of the second command line.
    @Test(arguments: Form.allCases)
    func aDownloadRejoinedAfterAKillSendsTheCredentials(form: Form) async throws {
        let server = try await Fixture.server()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "s3cret-\(UUID().uuidString)"
        let route = GuardedRoute(server, name: "report.txt", requiring: [("Authorization", form.authorization(secret))], holdingFirst: true)
        defer { route.release() }
        let state = directory.appendingPathComponent("state")
        let arguments = ["get", "--queue", state.path, "-o", directory.appendingPathComponent("out").path + "/"] + form.arguments(secret)
            + ["\(server.httpURL)\(route.path.dropFirst())"]
        let cb = try Cb()

        let killed = try await cb.run(arguments) { pid in
            route.waitForRequests(1)
            kill(pid, SIGKILL)
            route.release()
        }
        #expect(killed.status == SIGKILL, "\(killed)")
        #expect(Self.filesHolding([secret, form.authorization(secret)], under: state).isEmpty)

        let rejoined = try await cb.run(arguments)
        #expect(rejoined.status == 0, "\(rejoined)")
        #expect(rejoined.error.contains("rejoined 1 unfinished download(s)"), "\(rejoined)")
        #expect(route.requests.map { $0.header("Authorization") } == [form.authorization(secret), form.authorization(secret)])
        #expect((try? Data(contentsOf: directory.appendingPathComponent("out/report.txt"))) == route.body)
        #expect(Self.filesHolding([secret, form.authorization(secret)], under: state).isEmpty)
    }

    /// The journal of an earlier batch holds a download of another origin: the run that rejoins it
    /// sends its `-u` and `-H` to its own URLs' origin only.
    @Test func aRejoinedDownloadOfAnotherOriginGetsNoneOfThem() async throws {
        let (server, other) = (try await Fixture.server(), try await Fixture.otherServer())
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "s3cret-\(UUID().uuidString)"
        let earlier = GuardedRoute(other, name: "earlier.txt", requiring: [], holdingFirst: true)
        defer { earlier.release() }
        let route = GuardedRoute(
            server, name: "report.txt", requiring: [("Authorization", "Bearer \(secret)"), ("X-Api-Key", secret)])
        let options = ["get", "--queue", directory.appendingPathComponent("state").path, "-o", directory.appendingPathComponent("out").path + "/"]
        let cb = try Cb()

        let killed = try await cb.run(options + ["\(other.httpURL)\(earlier.path.dropFirst())"]) { pid in
            earlier.waitForRequests(1)
            kill(pid, SIGKILL)
            earlier.release()
        }
        #expect(killed.status == SIGKILL, "\(killed)")
        let run = try await cb.run(
            options + ["-H", "Authorization: Bearer \(secret)", "-H", "X-Api-Key: \(secret)", "\(server.httpURL)\(route.path.dropFirst())"])

        #expect(run.status == 0, "\(run)")
        #expect(run.error.contains("rejoined 1 unfinished download(s)"), "\(run)")
        #expect(earlier.requests.count == 2)
        #expect(earlier.requests.allSatisfy { $0.header("Authorization") == nil && $0.header("X-Api-Key") == nil })
        #expect(route.requests.count == 1)
    }

    /// With `-L`: a hop to the same origin keeps the credentials, a hop to another origin carries
    /// none of them — neither `-u`/`Authorization` nor another `-H` header.
    @Test(arguments: Form.allCases)
    func aRedirectToAnotherOriginCarriesNoneOfThem(form: Form) async throws {
        let (server, other) = (try await Fixture.server(), try await Fixture.otherServer())
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "s3cret-\(UUID().uuidString)"
        let sameOrigin = GuardedRoute(
            server, name: "same.txt", requiring: [("Authorization", form.authorization(secret)), ("X-Api-Key", secret)])
        let otherOrigin = GuardedRoute(other, name: "other.txt", requiring: [])
        let redirects = [sameOrigin.path, "\(other.httpURL)\(otherOrigin.path.dropFirst())"].map { target in
            "\(server.httpURL)redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target)"
        }

        let run = try await Cb().run(
            ["get", "-L", "--queue", directory.appendingPathComponent("state").path, "-o", directory.appendingPathComponent("out").path + "/"]
                + form.arguments(secret) + ["-H", "X-Api-Key: \(secret)"] + redirects)

        #expect(run.status == 0, "\(run)")
        #expect(sameOrigin.requests.count == 1, "the same-origin hop carried both, or it would have been refused")
        #expect(otherOrigin.requests.count == 1)
        #expect(otherOrigin.requests.allSatisfy { $0.header("Authorization") == nil && $0.header("X-Api-Key") == nil })
    }

    /// The files under `directory` whose bytes hold one of `secrets` (as written, or with `/`
    /// escaped as JSON may write it).
    static func filesHolding(_ secrets: [String], under directory: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        var holding: [String] = []
        while let file = enumerator?.nextObject() as? URL {
            guard let bytes = try? Data(contentsOf: file) else { continue }
            let forms = secrets.flatMap { [$0, $0.replacingOccurrences(of: "/", with: "\\/")] }
            if forms.contains(where: { bytes.range(of: Data($0.utf8)) != nil }) { holding.append(file.path) }
        }
        return holding
    }
}

/// A route that answers only a request carrying the headers it requires (else `401`), remembers
/// every request, and can keep its first one unanswered until ``release()``: a `cb` killed then
/// is killed in the middle of its download, which a later run rejoins.
final class GuardedRoute: Sendable {
    /// The route's path: a fresh directory, then the name.
    let path: String
    /// What it answers a request that carries the required headers.
    let body: Data
    private let seen = PosixLock<[RouteRequest]>([])
    private let gate = DispatchSemaphore(value: 0)

    init(_ server: TestServer, name: String, requiring required: [(name: String, value: String)], holdingFirst: Bool = false) {
        path = "/guarded-\(UUID().uuidString)/\(name)"
        body = Data("the body of \(name)\n".utf8)
        let (seen, gate, body) = (seen, gate, body)
        server.route(path) { request in
            let number = seen.withLock {
                $0.append(request)
                return $0.count
            }
            // A hang guard, never the way the test goes on: it releases the request itself.
            if holdingFirst, number == 1 { _ = gate.wait(timeout: .now() + 60) }
            guard required.allSatisfy({ request.header($0.name) == $0.value }) else {
                return RouteResponse(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"guarded\"")], body: Data("unauthorized".utf8))
            }
            return RouteResponse(headers: [("Content-Type", "text/plain")], body: body)
        }
    }

    /// The requests it received, first to last.
    var requests: [RouteRequest] { seen.withLock { $0 } }

    /// Answers the request it holds, if any.
    func release() { gate.signal() }

    /// Blocks until `count` requests arrived (at most a minute: a hang guard).
    func waitForRequests(_ count: Int) {
        let deadline = ContinuousClock.now + .seconds(60)
        while requests.count < count, ContinuousClock.now < deadline { usleep(1000) }
    }
}
