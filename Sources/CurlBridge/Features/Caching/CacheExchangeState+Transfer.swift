#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A sent request's transfer, as it reaches the cache: what the receiver sees of it, what is
/// recorded, and what its end stores, invalidates and passes on.
extension CacheExchangeState {
    /// A final head with `status`, declaring `declaredLength` body bytes, arrived at `time`:
    /// whether the receiver is told (a `304` revalidating a stored response is the cache's).
    /// Recording starts again for a GET whose body may fit, and stops otherwise.
    mutating func headArrived(status: Int, declaredLength: Int64?, at time: Date) -> Bool {
        switch phase {
        case .storing:
            responseTime = time
            recording = recordingFor(declaredLength)
            return true
        case .validating(let stored):
            responseTime = time
            if status == 304 {
                phase = .absorbingNotModified(stored)
                return false
            }
            recording = recordingFor(declaredLength)
            return true
        case .invalidating:
            responseTime = time
            return true
        case .lookingUp, .absorbingNotModified, .playing, .finished:
            return false
        }
    }

    /// The most room reserved for a recording before its bytes arrive: 1 MiB.
    static let reservedRecordingLimit: Int64 = 1 << 20

    /// A recording for a body of `declaredLength` bytes, its room reserved when declared (up to
    /// ``reservedRecordingLimit``: a length is only the server's word), so that the pieces are
    /// copied into it once, not again at every growth.
    private func recordingFor(_ declaredLength: Int64?) -> Recording {
        guard request.method == .get, declaredLength.map({ $0 <= maximumRecordedSize }) ?? true else { return .off }
        var body = Data()
        if let declaredLength, declaredLength > 0 { body.reserveCapacity(Int(min(declaredLength, Self.reservedRecordingLimit))) }
        return .on(body)
    }

    /// Whether the transfer's head, body and progress are kept from the receiver: a `304` being
    /// absorbed (and, unreachable, a transfer in a phase that sent none).
    var hidesResponse: Bool {
        switch phase {
        case .storing, .validating, .invalidating: false
        case .lookingUp, .absorbingNotModified, .playing, .finished: true
        }
    }

    /// The cache status a passed head is marked with: a miss when its response may be stored.
    var headCacheStatus: CacheStatus? {
        answerMayBeStored ? .miss : nil
    }

    /// The receiver took `bytes` of the body (a paused piece comes again, and is not recorded
    /// twice): copied while the body may be stored, dropped for good past the largest size.
    mutating func pieceTaken(_ bytes: UnsafeRawBufferPointer) {
        guard case .on(var body) = recording else { return }
        recording = .off  // the copy is the only reference: the append does not copy the body
        guard body.count + bytes.count <= maximumRecordedSize else { return }
        body.append(contentsOf: bytes)
        recording = .on(body)
    }

    /// The transfer beneath ended with `end`, sent (`sentAsLookedUp`) with the cookies of the
    /// partition it was looked up in, or not: what to invalidate, store and do next. `now` is
    /// read only when no head came. A revalidated response is played; anything else is passed on.
    mutating func transferEnded(_ end: TransferEnd, sentAsLookedUp: Bool, now: () -> Date) -> Ending? {
        switch phase {
        case .storing, .validating, .absorbingNotModified, .invalidating: break
        case .lookingUp, .playing, .finished: return nil
        }
        guard case .success(var response) = end.result else {
            phase = .finished
            return Ending(next: .end(end))
        }
        let responseTime = self.responseTime ?? now()
        if case .absorbingNotModified(let stored) = phase {
            let revalidated = CacheReplies.revalidated(stored, by: response, requestTime: requestTime, responseTime: responseTime)
            phase = .playing(CachePlay(revalidated.stored, fields: revalidated.fields, metrics: revalidated.metrics, answering: prepared))
            // Sent with other cookies than it was looked up with: the 304 answers this request
            // (it holds what its guessed partition holds), but updates nobody's entry.
            guard sentAsLookedUp else { return Ending(next: .schedulePlay) }
            return Ending(stored: revalidated.stored, persistent: !request.identity.carriesPassword, next: .schedulePlay)
        }
        let status = response.status.code
        var ending = Ending(
            invalidated: CacheAdmission.invalidated(method: request.method, url: request.url, status: status, fields: response.headerFields),
            next: .end(end))
        if answerMayBeStored {
            response.metrics.cacheStatus = .miss
            if case .on(let body) = recording, let partition = request.partition, sentAsLookedUp,
               CacheAdmission.mayStore(request, status: status, fields: response.headerFields) {
                let fields = CacheAdmission.storable(response.headerFields)
                ending.stored = StoredResponse(
                    url: request.url, partition: partition, status: response.status, headerFields: fields,
                    httpVersion: response.httpVersion, body: body, requestTime: requestTime, responseTime: responseTime,
                    variant: request.variant(of: StoredResponse.varyNames(fields)))
                ending.persistent = !request.identity.carriesPassword
            }
            var passed = end
            passed.result = .success(response)
            ending.next = .end(passed)
        }
        phase = .finished
        return ending
    }
}
