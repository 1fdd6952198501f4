/// How an ``H2FaultServer`` misbehaves: one fault per listener, applied to every request unless
/// the case says otherwise or its path starts with ``H2FaultServer/sparedPathPrefix``. Requests
/// the fault spares get a `200` whose body is the request's method, a space and its path (e.g.
/// `GET /a`), with `Content-Length`.
public enum H2Fault: Sendable, Hashable {
    /// Each stream gets a `200` announcing `content-length: 1000`, 100 bytes of DATA and a PING;
    /// once the client acknowledged the PING (it has read the head), RST_STREAM with
    /// INTERNAL_ERROR.
    case resetMidBody

    /// On the first connection the server waits until `requests` requests have arrived (sent
    /// concurrently by the client, multiplexed), then sends GOAWAY (NO_ERROR) whose last stream
    /// id is that of the `answered`-th request to arrive (0 when `answered` is 0), answers the
    /// streams up to it and never processes the others. Later connections are served normally.
    case goAway(requests: Int, answered: Int)

    /// Like ``goAway(requests:answered:)``, but the `answered`-th stream gets only a `200` head
    /// announcing 1000 bytes and 100 of them before the server closes the connection (no RST_STREAM).
    case goAwayThenCloseMidBody(requests: Int, answered: Int)

    /// The first `count` streams (over all connections) are reset with REFUSED_STREAM before any
    /// response: not processed, safe to send again. Later streams are served normally.
    case refuseStreams(count: Int)

    /// Each stream gets HEADERS without END_HEADERS, then CONTINUATION frames of one 1 KiB
    /// header field each, without end, until the client closes the connection (the server stops
    /// after ``H2FaultServer/continuationFloodLimit`` frames and closes the connection itself).
    case continuationFlood

    /// Each stream gets a `200` whose header section is at least `bytes` long (fields of 1 KiB),
    /// in one HEADERS and as many CONTINUATION frames as it takes (16 KiB each).
    case oversizedHeaderSection(bytes: Int)

    /// Each stream gets a `200` with one header field (`x-huge`) whose value is `bytes` long, in
    /// one HEADERS and as many CONTINUATION frames as it takes (16 KiB each).
    case oversizedHeaderField(bytes: Int)

    /// Each stream gets a `200` announcing `content-length: 10` and 20 bytes of DATA.
    case dataBeyondContentLength

    /// Each stream gets a `200` announcing 1000 bytes and 100 of them; then the server closes the
    /// connection (TLS close_notify and FIN, no RST_STREAM, no GOAWAY).
    case closeMidBody

    /// Each stream gets a `200` announcing 1000 bytes, 100 of them and a PING; once the client
    /// acknowledged the PING (it has read the head), the server resets the TCP connection
    /// (`SO_LINGER` 0: RST, no TLS close_notify, no RST_STREAM, no GOAWAY).
    case resetConnectionMidBody

    /// Each stream gets a `200` head announcing 1000 bytes and then nothing, until the client
    /// gives up.
    case stallAfterHeaders
}
