import CBenchSwiftFloor
@_spi(KeptWork) import CurlBridge
import FoundationEssentials
import Glibc

/// A response as the floor hands it back: the least any Swift client returns — the status, the
/// header lines as curl delivered them, and the body; the kept floor adds the transfer's metrics.
struct FloorResponse: Sendable {
    let status: Int
    let headerLines: Data
    let body: Data
    let metrics: FloorMetrics?
}

/// A transfer curl failed, with its `CURLcode`.
struct FloorError: Error {
    let code: Int
}

/// One request on the loop: its easy handle and error buffer, the header lines and the body as
/// curl delivers them — each in a `malloc`ed buffer, the body's sized from its declared length as
/// raw libcurl's `--collect` sizes it — and where its outcome goes. Made by the caller, then touched
/// only by the thread driving the loop until its outcome is handed back: the header lines and the
/// body as `Data` that takes over each buffer without a copy.
///
/// A kept transfer (``KeptRequest``) also brings its own checked URL, passes each header line
/// through CurlBridge's response head guard, hands back the transfer's metrics, and can be
/// cancelled (``FloorLoop/cancel(_:)``).
final class FloorTransfer: @unchecked Sendable {
    @exclusivity(unchecked) var easy: UnsafeMutableRawPointer?
    @exclusivity(unchecked) var errorBuffer: UnsafeMutablePointer<CChar>?
    @exclusivity(unchecked) private var headerLines = Bytes()
    @exclusivity(unchecked) private var body = Bytes()
    /// The kept floor's request, `nil` for the floor's (the loop's URL, no checks, no metrics).
    let kept: KeptRequest?
    @exclusivity(unchecked) private var headGuard: KeptWork.HeadGuard?
    /// Whether a cancel came before the loop started the transfer, and whether it has ended: the
    /// loop's alone.
    @exclusivity(unchecked) var isCancelled = false
    @exclusivity(unchecked) var hasEnded = false
    /// Where the outcome goes: set by the caller (at `init`, or after it and before the transfer
    /// is submitted), then read by the loop.
    @exclusivity(unchecked) var completion: @Sendable (Result<FloorResponse, FloorError>) -> Void

    /// A transfer reporting its outcome to `completion`, once, on the loop's thread; a kept one
    /// when `kept` is given.
    init(kept: KeptRequest? = nil, completion: @escaping @Sendable (Result<FloorResponse, FloorError>) -> Void = { _ in }) {
        self.kept = kept
        headGuard = kept.map { KeptWork.HeadGuard(limit: $0.maximumHeaderSize) }
        self.completion = completion
    }

    /// Hands the outcome of a transfer curl ended with `code` to the completion: the status and,
    /// for a kept transfer, the metrics, read from its handle before the handle is cleaned up.
    func complete(_ code: CURLcode, status: Int, metrics: FloorMetrics? = nil) {
        hasEnded = true
        guard code == CURLE_OK else {
            headerLines.free()
            body.free()
            return completion(.failure(FloorError(code: Int(code.rawValue))))
        }
        let response = FloorResponse(
            status: status, headerLines: headerLines.takeData(), body: body.takeData(), metrics: metrics)
        completion(.success(response))
    }

    /// curl's header callback: keeps the line, after the kept floor's guard accepts it.
    static let receiveHeaderLine: swift_floor_callback = { data, size, count, context in
        let transfer = Unmanaged<FloorTransfer>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        if transfer.headGuard?.accepts(UnsafeRawBufferPointer(start: data, count: length)) == false {
            return 0  // curl ends the transfer with CURLE_WRITE_ERROR
        }
        return transfer.headerLines.append(data, length, reserving: 512) ? length : 0
    }

    /// curl's write callback: appends the piece to the body, whose buffer is sized from the
    /// declared length at the first piece.
    static let receiveBody: swift_floor_callback = { data, size, count, context in
        let transfer = Unmanaged<FloorTransfer>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        var room = length
        if transfer.body.start == nil, let easy = transfer.easy {
            room = max(length, Int(swift_floor_declared_length(easy)))
        }
        return transfer.body.append(data, length, reserving: room) ? length : 0
    }
}

/// Bytes in a `malloc`ed buffer that doubles as it fills.
struct Bytes {
    var start: UnsafeMutablePointer<UInt8>?
    var count = 0
    private var capacity = 0

    /// Appends `length` bytes from `data`, growing the buffer to at least `reserving` bytes when it
    /// has none; `false` when memory ran out.
    mutating func append(_ data: UnsafeMutablePointer<CChar>?, _ length: Int, reserving: Int) -> Bool {
        if count + length > capacity {
            let wanted = max(count + length, start == nil ? reserving : 2 * capacity)
            guard let grown = realloc(start, wanted) else { return false }
            start = grown.assumingMemoryBound(to: UInt8.self)
            capacity = wanted
        }
        if let data { (start! + count).update(from: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length) }
        count += length
        return true
    }

    /// The bytes as `Data`, which frees the buffer when it goes; these bytes are then empty.
    mutating func takeData() -> Data {
        defer { self = Bytes() }
        return start.map { Data(bytesNoCopy: $0, count: count, deallocator: .free) } ?? Data()
    }

    /// Frees the buffer.
    mutating func free() {
        Glibc.free(start)
        self = Bytes()
    }
}
