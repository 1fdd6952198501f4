// What every article assumes without saying: the reader's model types and the functions their app
// calls with a result. Each article's own names are in Articles/<Name>.swift.
import CurlBridge
import Foundation

/// The reader's model type, as the articles decode it.
struct User: Codable, Sendable {
    var id: Int
    var name: String
}

/// The body of a request that creates a user.
struct NewUser: Codable, Sendable {
    var name: String
}

/// Shows a value in the reader's user interface.
func show(_ value: some Any) {}
/// Reports a failure to the reader's error handling.
func report(_ error: any Error) {}
/// Consumes a piece of a streamed body.
func consume(_ chunk: Data) {}
/// Prepares for a streamed body, given the response's head.
func prepare(_ head: some Any) {}
/// Ends the reader's handling of a transfer.
func finish(_ outcome: some Any) {}
/// Shows a transfer's progress, 0 to 1.
func showProgress(_ fraction: Double) {}
