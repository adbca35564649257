/// A reference that does not keep its object alive (`nil` once the object is gone).
struct WeakReference<Object: AnyObject> {
    weak var object: Object?

    init(_ object: Object?) {
        self.object = object
    }
}
