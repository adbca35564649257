/// The services the suites of decorated and forwarded registrations share: a store protocol, a file store whose
/// decorators leave a trail, and a store that wraps another.
enum ForwardedStores {
    protocol Store: AnyObject, Sendable { var trail: [String] { get } }

    final class FileStore: Store {
        let trail: [String]
        init(_ trail: [String] = ["file"]) { self.trail = trail }
        func with(_ tag: String) -> FileStore { FileStore(trail + [tag]) }
    }

    final class Cached: Store {
        let inner: any Store
        init(_ inner: any Store) { self.inner = inner }
        var trail: [String] { inner.trail + ["cached"] }
    }
}
