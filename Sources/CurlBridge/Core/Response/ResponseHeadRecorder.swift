/// Records, on the transport's loop, the field lines of a transfer's latest response head from
/// the lines curl's header callback hands over — instead of asking curl's header API for them
/// again (`curl_easy_nextheader` walks its list from the start on every call, and copies every name
/// and value twice) — for a ``ResponseHeaderBlock`` to parse when the fields are read.
///
/// Fed only lines ``ResponseHeadGuard`` accepted, with what the guard read each as. A status line
/// starts a new head (an interim `1xx` head, or a challenge curl answered, is replaced by the
/// next); trailers after the final head are left out.
///
/// The lines go straight into the block's storage. Once a block is handed out, its storage is
/// never written again: a later line goes into a copy, a later head into new storage. The
/// recorder is not copyable (nor is its ``TransferState``), so no copy of it can write into a
/// block the original handed out: that guarantee, checked by the compiler at no cost per line, is
/// what makes a block's lines immutable (``ResponseHeaderBlock``'s `@unchecked Sendable`).
struct ResponseHeadRecorder: ~Copyable {
    /// The lines of the latest head so far; `nil` until the first status line or block.
    private var storage: ResponseHeaderBlock.Storage?
    /// Whether ``storage`` is in a block handed out.
    private var isHandedOut = false

    /// The room the first status line makes: a typical head's.
    static let initialCapacity = 512

    /// An empty recorder, holding no memory until the first status line (see ``take(_:as:)``).
    init() {}

    /// The field lines of the latest head so far.
    mutating func headerBlock() -> ResponseHeaderBlock {
        let storage = storage ?? ResponseHeaderBlock.Storage.make(capacity: 0)
        self.storage = storage
        isHandedOut = true
        return ResponseHeaderBlock(sealed: storage)
    }

    /// Takes one line, line ending included, which the guard read as `kind`.
    mutating func take(_ line: UnsafeRawBufferPointer, as kind: ResponseHeadGuard.LineKind) {
        switch kind {
        case .statusLine:
            // A status line starts the next head. The first makes room for a typical head, so a
            // transfer still waiting for its answer holds none (1,000 in flight, issue 37).
            if !isHandedOut, let storage {
                storage.removeAll()
            } else {
                storage = .make(capacity: Self.initialCapacity)
                isHandedOut = false
            }
        case .headField:
            // Appended through the stored reference, not a local copy of it: no retain and
            // release per line.
            if !isHandedOut, storage?.append(line) == true { return }
            makeRoom(adding: line.count)
            let appended = storage.unsafelyUnwrapped.append(line)
            precondition(appended, "a header block made with room for a line took it")
        case .otherField, .blank:
            break  // a trailer, or the end of a head
        }
    }

    /// Replaces the storage by a copy that is not handed out, with room for `extra` more bytes
    /// (double, at least).
    private mutating func makeRoom(adding extra: Int) {
        let count = storage?.count ?? 0
        let capacity = max(Self.initialCapacity, 2 * count, count + extra)
        storage = storage?.copy(capacity: capacity) ?? .make(capacity: capacity)
        isHandedOut = false
    }
}
