/// The query parameters of `/resource/N`.
struct ResourceOptions {
    /// Accepted `version`s.
    static let versions = 0...100_000
    /// What the parameters must be, for the `400` when they are not.
    static let requirements =
        "version must be an integer in \(versions), cut and stall-after ones in \(Router.byteCounts), "
        + "and weak-etag, no-validators and ignore-range 0 or 1"

    /// `version`: which version of the resource to send (default 1).
    let version: Int
    /// `cut`: how many body bytes to send before closing the connection; `nil` (the default) for all.
    let cut: Int?
    /// `stall-after`: how many body bytes to send before sending nothing more, with the connection
    /// left open; `nil` (the default) for all.
    let stall: Int?
    /// `weak-etag=1` makes them weak, `no-validators=1` drops them (default: strong).
    let validatorStyle: ResourceValidators.Style
    /// `false` after `ignore-range=1`: no `Accept-Ranges`, and `Range` is not looked at.
    let honoursRanges: Bool

    /// Reads the options from `parameters`; `nil` if one is malformed or out of range.
    init?(_ parameters: QueryParameters) {
        guard let version = Router.integer(parameters["version"], in: Self.versions, default: 1),
              let weakETag = Self.switchIsOn(parameters["weak-etag"]),
              let noValidators = Self.switchIsOn(parameters["no-validators"]),
              let ignoreRange = Self.switchIsOn(parameters["ignore-range"])
        else { return nil }
        guard let cut = Self.byteCount(parameters["cut"]), let stall = Self.byteCount(parameters["stall-after"]) else {
            return nil
        }
        self.cut = cut
        self.stall = stall
        self.version = version
        self.validatorStyle = noValidators ? .none : weakETag ? .weak : .strong
        self.honoursRanges = !ignoreRange
    }

    /// An optional byte count: `.some(nil)` when absent, `nil` when malformed.
    private static func byteCount(_ value: String?) -> Int?? {
        guard let value else { return .some(nil) }
        return Router.integer(value, in: Router.byteCounts).map { .some($0) }
    }

    /// An on/off switch's state: `false` when absent or `0`, `true` for `1`, `nil` otherwise.
    private static func switchIsOn(_ value: String?) -> Bool? {
        Router.integer(value, in: 0...1, default: 0).map { $0 == 1 }
    }
}
