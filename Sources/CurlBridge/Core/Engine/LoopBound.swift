/// An object confined to a transport's loop — an engine, the registry, the loop's own state —
/// which any thread may carry and only the loop's one owner may open. What NIO's
/// `NIOLoopBound` is to an event loop. It holds the object one of two ways:
///
/// - `LoopBound(owning: object)`, `LoopBound(owning: object, on: loop)`: strongly. For the loop's
///   own state, kept in the loop; the registry, which every request, handle, task and timer of
///   the transport reaches. Two plain references: copying one costs a retain.
/// - `LoopBound(object, on: loop)`: weakly, object and loop, through one small box — work arriving
///   after either went away finds nothing. For an engine's tasks, which must not keep it.
///
/// Work handed to the loop with ``submit(_:)`` opens it there; the loop's owner may ``open()`` it.
///
/// `@unchecked Sendable`: the object is opened only on the loop's one owner, or by its maker before the loop has it.
struct LoopBound<Object: AnyObject>: @unchecked Sendable {
    /// The object, held strongly; `nil` when held weakly.
    private let ownedObject: Object?
    /// The loop of a strongly held object, if given.
    private let ownedLoop: (any RequestLoop)?
    /// The object and its loop, held weakly; `nil` when held strongly.
    private let weakReference: WeakReference?

    /// The weak references of the weak form: a box, so that the bound itself is two plain
    /// references, which the compiler moves and copies as such.
    private final class WeakReference {
        weak var object: Object?
        weak var loop: (any RequestLoop)?

        init(_ object: Object, on loop: any RequestLoop) {
            self.object = object
            self.loop = loop
        }
    }

    /// A strong reference to `object`, confined to `loop` (if given, for ``submit(_:)``). The
    /// maker hands the object over: from then on it reaches the object only through this.
    init(owning object: Object, on loop: (any RequestLoop)? = nil) {
        ownedObject = object
        ownedLoop = loop
        weakReference = nil
    }

    /// A weak reference to `object`, confined to `loop`.
    init(_ object: Object, on loop: any RequestLoop) {
        ownedObject = nil
        ownedLoop = nil
        weakReference = WeakReference(object, on: loop)
    }

    /// The object, if it still exists: only on the loop's owner — inside work the loop runs or in
    /// its own turn — or by the maker of an owned object before the loop has it.
    @inline(__always)
    func open() -> Object? {
        ownedObject ?? weakReference?.object
    }

    /// Hands `work` to the loop, which runs it with the object if the object still exists.
    ///
    /// - Returns: `false` when the loop is gone or no longer accepts work.
    @discardableResult
    func submit(_ work: @escaping @Sendable (Object) -> Void) -> Bool {
        guard let loop = ownedLoop ?? weakReference?.loop else { return false }
        return loop.submit { [self] in
            if let object = open() { work(object) }
        }
    }
}
