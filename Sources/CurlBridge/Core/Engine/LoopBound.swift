/// A reference to an object confined to a transport's loop (an engine, say), which any thread
/// may carry — in a task, a timer, a body stream's wake-up — and only work the loop runs may
/// open: ``submit(_:)`` is its one way in. What NIO's `NIOLoopBound` is to an event loop.
///
/// `@unchecked Sendable`: the object is opened only inside work the loop runs, on its one owner.
struct LoopBound<Object: AnyObject>: @unchecked Sendable {
    /// The object; weak, so that work arriving after it went away finds nothing.
    private weak var object: Object?
    /// The loop it is confined to.
    private weak var loop: (any RequestLoop)?

    /// A reference to `object`, confined to `loop`.
    init(_ object: Object, on loop: any RequestLoop) {
        self.object = object
        self.loop = loop
    }

    /// Hands `work` to the loop, which runs it with the object if the object still exists.
    ///
    /// - Returns: `false` when the loop is gone or no longer accepts work.
    @discardableResult
    func submit(_ work: @escaping @Sendable (Object) -> Void) -> Bool {
        guard let loop else { return false }
        return loop.submit { [self] in
            if let object { work(object) }
        }
    }
}
