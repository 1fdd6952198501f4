/// An object confined to a transport's loop — an engine, the registry, a request, the loop's own
/// state — which any thread may carry and only the loop's one owner may open. What NIO's
/// `NIOLoopBound` is to an event loop. It holds the object one of two ways:
///
/// - `LoopBound(object, on: loop)`: weakly, with its loop. Any thread may ``submit(_:)`` work,
///   which the loop runs with the object if it still exists: an engine's tasks and timers, the
///   registry's commands.
/// - `LoopBound(owning: object)`: strongly, for its holder to ``open()`` on the loop's owner:
///   the loop's own state, kept in the loop, or a request made on its caller's thread and carried
///   to the loop inside the work that registers it.
///
/// `@unchecked Sendable`: the object is opened only on the loop's one owner, or by its maker before the loop has it.
struct LoopBound<Object: AnyObject>: @unchecked Sendable {
    /// The object held weakly: work arriving after it went away finds nothing.
    private weak var weakObject: Object?
    /// The object held strongly.
    private let ownedObject: Object?
    /// The loop it is confined to, when held weakly.
    private weak var loop: (any RequestLoop)?

    /// A weak reference to `object`, confined to `loop`.
    init(_ object: Object, on loop: any RequestLoop) {
        weakObject = object
        ownedObject = nil
        self.loop = loop
    }

    /// A strong reference to `object`, for the loop's owner; the maker hands the object over
    /// (`sending`) and keeps no other reference to it.
    init(owning object: sending Object) {
        ownedObject = object
    }

    /// The object, if it still exists: only on the loop's owner, inside work the loop runs or in
    /// its own turn — or by the maker of an owned object before the loop has it (a request the
    /// loop refused).
    @inline(__always)
    func open() -> Object? {
        ownedObject ?? weakObject
    }

    /// Hands `work` to the loop, which runs it with the object if the object still exists.
    ///
    /// - Returns: `false` when the loop is gone or no longer accepts work.
    @discardableResult
    func submit(_ work: @escaping @Sendable (Object) -> Void) -> Bool {
        guard let loop else { return false }
        return loop.submit { [self] in
            if let object = open() { work(object) }
        }
    }
}
