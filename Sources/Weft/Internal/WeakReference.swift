import WeftAtomics

/// A reference that does not keep its object alive (`nil` once the object is gone).
struct WeakReference<Object: AnyObject> {
    weak var object: Object?

    init(_ object: Object?) {
        self.object = object
    }
}

/// A reference to a container shared by the container's registrations (see ``_ServiceEntryBase/owner``), which
/// does not keep it alive: the container tells it when it goes (``containerIsGone()``, first thing in its deinit).
///
/// Not a `weak` reference: a weak reference gives the container a side table, which makes every retain and release
/// of it (each scope made from it, each async factory's resolver) a slow atomic operation.
final class ContainerReference: @unchecked Sendable {
    private let lock = InlineLock()
    /// Never used as a Swift reference (loading one retains it, even an `unowned(unsafe)` one in unoptimised code):
    /// only retained with `weft_try_retain`, which refuses once the container's deinit has begun.
    private let target: Unmanaged<Container>
    /// Guarded by `lock`.
    @exclusivity(unchecked) private var alive = true

    init(_ container: Container) {
        target = Unmanaged.passUnretained(container)
    }

    /// The container, retained, unless it is gone or going (its deinit has begun).
    var container: Container? {
        lock.lock()
        let retained = alive && weft_try_retain(target.toOpaque())
        lock.unlock()
        return retained ? target.takeRetainedValue() : nil
    }

    /// Runs `body` with the container unless it is gone or going; returns whether it ran.
    @discardableResult
    func withContainer(_ body: (Container) -> Void) -> Bool {
        guard let container else { return false }
        body(container)
        return true
    }

    /// Called first by the container's deinit: from now on ``container`` is nil. Its memory stays valid until then,
    /// so a `weft_try_retain` under the lock never touches a freed container.
    func containerIsGone() {
        lock.withLock { alive = false }
    }
}
