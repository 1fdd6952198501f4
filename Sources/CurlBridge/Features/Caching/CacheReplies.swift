#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// The responses the cache answers with in place of a transfer, or after a `304 Not Modified`,
/// built from what is stored: pure values, unit-tested without I/O.
enum CacheReplies {
    /// The fields of `stored` served at `now`: its own, with the `Age` its freshness gives.
    static func servedFields(_ stored: StoredResponse, now: Date) -> HTTPFields {
        var fields = stored.headerFields
        fields[HTTPField.Name("Age")!] = CacheFreshness(of: stored, now: now).ageFieldValue
        return fields
    }

    /// The `304 Not Modified` answering a caller's own conditional request from `stored` at `now`:
    /// its fields without `Content-Length`, and no body.
    static func notModified(_ stored: StoredResponse, now: Date) -> StoredResponse {
        StoredResponse(
            url: stored.url, partition: stored.partition, status: .notModified,
            headerFields: HTTPFields(stored.headerFields.filter { $0.name != .contentLength }),
            httpVersion: stored.httpVersion, body: Data(), requestTime: now, responseTime: now, variant: stored.variant)
    }

    /// The `504 Gateway Timeout` of a request that asked `only-if-cached` when nothing usable is
    /// stored (RFC 9111 §5.2.1.7), at `now`.
    static func gatewayTimeout(_ request: CacheRequest, now: Date) -> StoredResponse {
        StoredResponse(
            url: request.url, partition: request.partition ?? "", status: .gatewayTimeout, headerFields: [.contentLength: "0"],
            httpVersion: .http1_1, body: Data(), requestTime: now, responseTime: now, variant: [:])
    }

    /// `stored` revalidated by the `304` `response`, requested at `requestTime` and received at
    /// `responseTime`: what to store (``CacheAdmission/updated(_:by:requestTime:responseTime:)``),
    /// the fields the caller sees — those plus the cookies the 304 set (curl's jar took them),
    /// which are never stored, as many as a response holds — and the transfer's metrics, marked
    /// ``CacheStatus/revalidated``.
    static func revalidated(
        _ stored: StoredResponse, by response: Response, requestTime: Date, responseTime: Date
    ) -> (stored: StoredResponse, fields: HTTPFields, metrics: TransferMetrics) {
        let updated = CacheAdmission.updated(stored, by: response.headerFields, requestTime: requestTime, responseTime: responseTime)
        var metrics = response.metrics
        metrics.cacheStatus = .revalidated
        var fields = updated.headerFields
        let cookies = response.headerFields.filter { CacheAdmission.cookieSettingNames.contains($0.name.canonicalName) }
        fields.append(contentsOf: cookies.prefix(max(0, StoredResponse.maximumFieldCount - fields.count)))
        return (updated, fields, metrics)
    }
}

extension TransferMetrics {
    /// The metrics of a response the cache answered without a transfer.
    static func fromCache(_ status: CacheStatus) -> TransferMetrics {
        var metrics = TransferMetrics.zero
        metrics.cacheStatus = status
        return metrics
    }
}
