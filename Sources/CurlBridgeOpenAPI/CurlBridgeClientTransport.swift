import CurlBridge
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends a generated client's requests through a
/// CurlBridge `AsyncClient`, with both bodies streamed.
///
/// ```swift
/// let transport = CurlBridgeClientTransport(transport: Transport(configuration: configuration))
/// let client = Client(serverURL: try Servers.Server1.url(), transport: transport)
/// let item = try await client.getJSON().ok.body.json
/// ```
///
/// How a call goes:
/// - the URL is the runtime's server URL followed by the operation's path and query; the method
///   and every header field are sent as given (the transport configuration's default headers
///   fill in those the request does not set);
/// - a request body is uploaded while the runtime produces it, never held whole: with
///   `Content-Length` when its length is known, chunked (HTTP/1.1) otherwise. It can be sent once
///   only: a transfer that curl would need to start again after sending part of it fails with
///   `RequestError/Code/bodyNotRewindable`, and a `RetryPolicy` does not retry an operation
///   with a body (bodiless ones it does);
/// - `send` returns as soon as the response head has arrived; the body follows as the caller reads
///   it, at most ``Configuration-swift.struct/bufferLimits`` ahead of the reader (the transfer
///   pauses beyond). Responses to `HEAD`, and `204` and `304` responses, have no body (`nil`);
/// - cancelling the calling task, or the task reading the body, cancels the transfer; so does
///   dropping the response body before its end;
/// - a failure is thrown as the `RequestError` itself, which the generated client wraps in a
///   `ClientError` with the `RequestError` as its `underlyingError`. A response body that fails
///   while it is read throws the `RequestError` from the body's iteration. A non-2xx status is
///   not an error: the generated client returns it as the operation's response.
public struct CurlBridgeClientTransport: ClientTransport {
    /// The client requests go through.
    public let client: AsyncClient
    /// How requests are made and responses read.
    public var configuration: Configuration

    /// Creates a transport over `client`.
    ///
    /// - Parameters:
    ///   - client: The client to send through; its transport's configuration (timeouts, TLS,
    ///     redirects, retries, interceptors, monitors) applies to every call.
    ///   - configuration: Buffering and per-operation adjustments; the defaults by default.
    public init(client: AsyncClient, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
    }

    /// Creates a transport over a new `AsyncClient` of `transport`.
    ///
    /// - Parameters:
    ///   - transport: The transport to send through, usually shared with the rest of the app.
    ///   - configuration: Buffering and per-operation adjustments; the defaults by default.
    public init(transport: Transport, configuration: Configuration = Configuration()) {
        self.init(client: AsyncClient(transport: transport), configuration: configuration)
    }

    /// Sends `request` with `body` to `baseURL` and returns the response as soon as its head has
    /// arrived, with its body streaming in.
    ///
    /// - Parameters:
    ///   - request: The request; its path holds the operation's path and query.
    ///   - body: The request body, uploaded as it is produced; `nil` for none.
    ///   - baseURL: The server URL the path is appended to.
    ///   - operationID: The operation's `operationId`, passed to
    ///     ``Configuration-swift.struct/adaptRequest``.
    /// - Returns: The response head and its body; `nil` for a response that has none.
    /// - Throws: `RequestError`, including `RequestError/Code/cancelled` when the task is
    ///   cancelled.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var curlRequest = Request(request, body: body, baseURL: baseURL)
        if let adapt = configuration.adaptRequest {
            curlRequest = adapt(curlRequest, operationID)
        }
        let streamed = try await client.stream(curlRequest, bufferLimits: configuration.bufferLimits)
        let responseBody = try await HTTPBody.responseBody(
            of: streamed, to: request.method,
            decodesContentEncoding: client.transport.configuration.decodesContentEncoding)
        return (HTTPResponse(status: streamed.status, headerFields: streamed.headerFields), responseBody)
    }
}
