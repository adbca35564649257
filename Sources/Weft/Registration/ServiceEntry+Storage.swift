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
        if let typedShared, buildClaim.isFree {
            let instance = typedShared.pointee
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
        var copy: UnsafeMutablePointer<Service>?
        let storage = lockWithStorage()
        if storage == nil, usesGate {
            lock.unlock()
            storeThroughGate(erased, inGraph: graph)
            return noteOwned(erased)
        }
        var dropped = copy
        if !buildClaim.stale {
            storage?.setInstance(erased, inGraph: graph)
            if behavior.keptByContainer {
                if copy == nil { copy = Self.typedCopy(of: instance) }
                dropped = typedShared
                typedShared = copy
            }
        }
        lock.unlock()
        Self.free(dropped)
        return noteOwned(erased)
    }

    /// A typed copy of `instance` in memory of its own (see ``typedShared``).
    static func typedCopy(of instance: Service) -> UnsafeMutablePointer<Service> {
        let copy = UnsafeMutablePointer<Service>.allocate(capacity: 1)
        fill(copy, with: instance)
        return copy
    }

    /// Destroys and frees a typed copy (outside the lock: a deinit may call back into the container).
    @inline(__always)
    static func free(_ copy: UnsafeMutablePointer<Service>?) {
        guard let copy else { return }
        empty(copy)
        copy.deallocate()
    }

    /// Whether `Service` is a class, whose values are copied and destroyed as `AnyObject` (a retain, a release):
    /// this code is not specialised for `Service`, and would otherwise go through its value witnesses.
    @inline(__always)
    static var holdsObjects: Bool { TypeKind.isClass(Service.self) }

    /// `instance`, a class instance (``holdsObjects``), as an unretained object reference.
    @inline(__always)
    static func object(_ instance: Service) -> Unmanaged<AnyObject> {
        unsafeBitCast(instance, to: Unmanaged<AnyObject>.self)
    }

    /// Initialises the uninitialised `slot` with a copy of `instance`.
    @inline(__always)
    static func fill(_ slot: UnsafeMutablePointer<Service>, with instance: Service) {
        guard holdsObjects else { return slot.initialize(to: instance) }
        UnsafeMutableRawPointer(slot).storeBytes(of: object(instance).retain(), as: Unmanaged<AnyObject>.self)
    }

    /// Destroys the instance in `slot`, leaving it uninitialised. Moved out and dropped: one value-witness call
    /// (or one release), where `deinitialize(count:)` is a generic loop.
    @inline(__always)
    static func empty(_ slot: UnsafeMutablePointer<Service>) {
        guard holdsObjects else {
            _ = slot.move()
            return
        }
        UnsafeRawPointer(slot).load(as: Unmanaged<AnyObject>.self).release()
    }

    /// Takes the lock and returns the built-in scope's storage for this registration, made on first need (Weft's
    /// own code, so under the lock); the caller releases the lock. Not generic and without a closure, so that the
    /// registration's unspecialised code looks up no type metadata for it.
    ///
    /// Nil for a custom scope (see ``usesGate``), whose storage is made and called through its gate with the lock
    /// let go.
    func lockWithStorage() -> (any InstanceStorage)? {
        lock.lock()
        if !behavior.isBuiltIn { return nil }
        if let madeStorage { return madeStorage }
        let made = scope.makeStorage()
        madeStorage = made
        return made
    }

    /// The instance kept for `graph` in `storage`, read with the lock held.
    func keptLocked(_ storage: (any InstanceStorage)?, graph: GraphIdentifier) -> Any? {
        storage?.instance(inGraph: graph)
    }
}
