/// A custom scope's storage of one registration, with the gate that serialises calls into it.
///
/// A custom ``InstanceStorage`` is user code, and its contract says it need not be thread-safe: the container
/// calls one storage from one thread at a time. The gate does that and nothing else. It is taken with no other
/// lock of Weft's held, and no other lock of Weft's is held while the storage runs: the registration's lock (which
/// a store takes briefly inside the gate, to decide whether its instance is stale), the coordination of builds
/// and the async builds' lock are each taken and let go before or after a storage is called, never around it. A storage method may therefore use the container, as long as it does not resolve
/// the registration whose instances it keeps (that would wait for its own gate). Waiters sleep (see
/// ``InlineLock``), so a storage that blocks makes other threads wait without spinning.
///
/// The storages of the built-in scopes are Weft's own and are called under the registration's lock instead,
/// together with the typed slot they keep beside it (see ``ServiceEntry``).
final class GatedStorage: @unchecked Sendable {
    private let storage: any InstanceStorage
    private let gate = InlineLock()

    init(_ storage: any InstanceStorage) {
        self.storage = storage
    }

    /// Calls `body` with the storage, no other thread calling into it meanwhile.
    func withStorage<T>(_ body: (any InstanceStorage) throws -> T) rethrows -> T {
        gate.lock()
        defer { gate.unlock() }
        return try body(storage)
    }

    /// The instance the storage keeps for `graph`.
    func instance(inGraph graph: GraphIdentifier) -> Any? {
        withStorage { $0.instance(inGraph: graph) }
    }

    /// Takes the storage's instance out (an instance that outlives the call is released by the caller, outside
    /// the gate).
    func takeInstance() -> Any? {
        withStorage { storage in
            defer { storage.instance = nil }
            return storage.instance
        }
    }

    /// Tells the storage that `graph` is complete.
    func graphCompleted() {
        withStorage { $0.graphResolutionCompleted() }
    }
}

/// An instance a custom scope's build has stored, kept by its registration while the build holds its claim (see
/// ``ServiceEntry``'s `offeredInstance`). Boxed so that a registration that has none pays one pointer, cleared
/// without the generic code an optional existential needs.
final class OfferedInstance: @unchecked Sendable {
    let value: Any

    init(_ value: Any) {
        self.value = value
    }
}
