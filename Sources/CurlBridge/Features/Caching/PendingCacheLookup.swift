import Foundation

/// A request waiting for its stored variants, read on the cache's lookup queue off the loop:
/// what ``CachingEngine`` needs to decide about it once they come.
struct PendingCacheLookup {
    /// Which lookup this is: an answer carrying another number is for a stopped one.
    let number: UInt64
    let request: CacheRequest
    let prepared: PreparedRequest
    /// The request's receiver.
    let receiver: any TransferReceiver
    /// When the request began, by the cache's clock: the moment it is decided for.
    let requestTime: Date
    /// Its receiver asked to pause before any transfer began: the transfer begins paused.
    var isPaused = false
}
