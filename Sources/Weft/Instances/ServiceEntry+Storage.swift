/// How a registration keeps its instances: the typed slot beside a built-in scope's storage, read and written
/// together under the registration's lock.
extension ServiceEntry {
    /// The stored `.container` instance if there is one and nobody builds it (after calling `found`); otherwise
    /// what `orElse` returns. While a claim is held, by another resolution or by `state` itself (its callbacks
    /// resolving the instance they complete), `orElse` decides, as it does for an instance not built yet.
    @inlinable @inline(__always)
    func completeSharedInstance(
        for state: ResolutionState,
        found: () throws -> Void,
        orElse: () throws -> Service
    ) rethrows -> Service {
        lock.lock()
        if let typedShared = slot.typedShared, slot.buildClaim.isFree {
            let instance = typedShared.assumingMemoryBound(to: Service.self).pointee
            lock.unlock()
            try found()
            return instance
        }
        lock.unlock()
        return try orElse()
    }

    /// Stores a new shared `instance` (also given erased) for `graph`, with a typed copy when the scope is
    /// `.container`, under one lock so that both are seen together.
    @discardableResult
    func storeShared(_ instance: Service, erased: Any, inGraph graph: GraphIdentifier) -> Bool {
        // A registration decides under the lock whether its scope keeps a typed copy (`.container` does, once per
        // instance).
        let storage = lockWithStorage()
        if storage == nil, usesGate {
            lock.unlock()
            storeThroughGate(erased, inGraph: graph)
            return noteOwned(erased)
        }
        let dropped = slot.storeShared(
            instance, erased: erased, in: storage, graph: graph, keepsTypedCopy: configuration.behavior.keptByContainer)
        lock.unlock()
        TypedCopy<Service>.free(dropped)
        return noteOwned(erased)
    }

    /// Takes the lock and returns the built-in scope's storage for this registration, made on first need (Weft's
    /// own code, so under the lock); the caller releases the lock. Not generic and without a closure, so that the
    /// registration's unspecialised code looks up no type metadata for it.
    ///
    /// Nil for a custom scope (see ``usesGate``), whose storage is made and called through its gate with the lock
    /// let go.
    func lockWithStorage() -> (any InstanceStorage)? {
        lock.lock()
        if !configuration.behavior.isBuiltIn { return nil }
        if let madeStorage = slot.madeStorage { return madeStorage }
        let made = configuration.scope.makeStorage()
        slot.madeStorage = made
        return made
    }

    /// The instance kept for `graph` in `storage`, read with the lock held.
    func keptLocked(_ storage: (any InstanceStorage)?, graph: GraphIdentifier) -> Any? {
        storage?.instance(inGraph: graph)
    }
}
