import CBenchSwiftFloor
import FoundationEssentials

/// A response as the floor hands it back: the least any Swift client returns — the status, the
/// header lines as curl delivered them, and the body in `Data`.
struct FloorResponse: Sendable {
    let status: Int
    let headerLines: [UInt8]
    let body: Data
}

/// A transfer curl failed, with its `CURLcode`.
struct FloorError: Error {
    let code: Int
}

/// One request on the loop: its easy handle and error buffer, the header lines and the body as
/// curl delivers them, and where its outcome goes. Made by the caller, then touched only by the
/// thread driving the loop until its outcome is handed back.
final class FloorTransfer: @unchecked Sendable {
    @exclusivity(unchecked) var easy: UnsafeMutableRawPointer?
    @exclusivity(unchecked) var errorBuffer: UnsafeMutablePointer<CChar>?
    @exclusivity(unchecked) private var headerLines: [UInt8] = []
    @exclusivity(unchecked) private var body = Data()
    private let completion: @Sendable (Result<FloorResponse, FloorError>) -> Void

    /// A transfer reporting its outcome to `completion`, once, on the loop's thread.
    init(completion: @escaping @Sendable (Result<FloorResponse, FloorError>) -> Void) {
        self.completion = completion
        headerLines.reserveCapacity(512)
    }

    /// Hands the outcome of a transfer curl ended with `code` to the completion.
    func complete(_ code: CURLcode, status: Int) {
        completion(code == CURLE_OK
            ? .success(FloorResponse(status: status, headerLines: headerLines, body: body))
            : .failure(FloorError(code: Int(code.rawValue))))
    }

    /// curl's header callback: keeps the line.
    static let receiveHeaderLine: swift_floor_callback = { data, size, count, context in
        let transfer = Unmanaged<FloorTransfer>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        transfer.headerLines.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
        return length
    }

    /// curl's write callback: appends the piece to the body, sized from the declared length first.
    static let receiveBody: swift_floor_callback = { data, size, count, context in
        let transfer = Unmanaged<FloorTransfer>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        if transfer.body.isEmpty, let easy = transfer.easy {
            let declared = swift_floor_declared_length(easy)
            if declared > length { transfer.body.reserveCapacity(Int(declared)) }
        }
        transfer.body.append(UnsafeRawBufferPointer(start: data, count: length).assumingMemoryBound(to: UInt8.self))
        return length
    }
}
