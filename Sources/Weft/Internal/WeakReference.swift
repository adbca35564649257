/// A reference that does not keep its object alive (`nil` once the object is gone).
struct WeakReference<Object: AnyObject> {
    weak var object: Object?

    init(_ object: Object?) {
        self.object = object
    }
}

/// A weak reference to a container, shared by the container's registrations (see
/// ``_ServiceEntryBase/owner``): one weak reference per container instead of one per registration, whose
/// forming and destroying cost about 100 instructions a registration.
final class ContainerReference: @unchecked Sendable {
    /// The container; nil once it is gone. Set only by `init`.
    private(set) weak var container: Container?

    init(_ container: Container) {
        self.container = container
    }
}
