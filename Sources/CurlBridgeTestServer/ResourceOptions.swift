/// The query parameters of `/resource/N`.
struct ResourceOptions {
    /// Accepted `version`s.
    static let versions = 0...100_000
    /// What the parameters must be, for the `400` when they are not.
    static let requirements =
        "version must be an integer in \(versions), cut one in \(Router.byteCounts), "
        + "and weak-etag, no-validators and ignore-range 0 or 1"

    /// `version`: which version of the resource to send (default 1).
    let version: Int
    /// `cut`: how many body bytes to send before closing the connection; `nil` (the default) for all.
    let cut: Int?
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
        if let cut = parameters["cut"] {
            guard let bytes = Router.integer(cut, in: Router.byteCounts) else { return nil }
            self.cut = bytes
        } else {
            self.cut = nil
        }
        self.version = version
        self.validatorStyle = noValidators ? .none : weakETag ? .weak : .strong
        self.honoursRanges = !ignoreRange
    }

    /// An on/off switch's state: `false` when absent or `0`, `true` for `1`, `nil` otherwise.
    private static func switchIsOn(_ value: String?) -> Bool? {
        Router.integer(value, in: 0...1, default: 0).map { $0 == 1 }
    }
}
