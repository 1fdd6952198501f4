/// A request as the fault server assembles it from a stream's frames.
struct H2FaultRequest {
    /// The stream it arrived on.
    let streamID: UInt32
    /// `:method`, empty if the block had none.
    let method: String
    /// `:path`, empty if the block had none.
    let path: String
    /// Body bytes received so far.
    var bodyBytes = 0

    /// The record of this request with `disposition`, on connection `connection`.
    func record(connection: Int, _ disposition: H2StreamRecord.Disposition) -> H2StreamRecord {
        H2StreamRecord(
            connection: connection, streamID: streamID, method: method, path: path, bodyBytes: bodyBytes,
            disposition: disposition)
    }
}
