/// How a registration keeps its instances: the typed slot beside a built-in scope's storage, read and written
/// together under the registration's lock, and a scope's copy noticing that its original discarded since.
extension ServiceEntry {
    /// The stored `.container` instance if there is one that `state` may use (after calling `found`);
    /// otherwise what `orElse` returns.
    @inlinable @inline(__always)
    func completeSharedInstance(
        for state: ResolutionState,
        found: () throws -> Void,
        orElse: () throws -> Service
    ) rethrows -> Service {
        if originalReference != nil { dropIfOriginalDiscarded() }
        lock.lock()
        if let typedShared, buildClaim.admits(state) {
            let instance = typedShared.pointee
            lock.unlock()
            try found()
            return instance
        }
        lock.unlock()
        return try orElse()
    }

    /// Takes the claim of this scope's copy for `state`, building in `graph`, when the copy holds no instance and
    /// nobody builds it: what ``claim(by:graph:policy:coordinated:)`` does then, without the answers of the other
    /// cases (the caller takes the general way for those). The caller has just checked the original's discards
    /// (``completeSharedInstance(for:found:orElse:)``); one made since is noticed when the instance is next used.
    @inline(__always)
    func claimEmptyScopeCopy(by state: ResolutionState, graph: GraphIdentifier) -> Bool {
        lock.lock()
        guard typedShared == nil, !buildClaim.isHeld else {
            lock.unlock()
            return false
        }
        buildClaim.take(by: state, graph: graph)
        lock.unlock()
        return true
    }

    /// Gives up the claim of this scope's copy taken with ``claimEmptyScopeCopy(by:graph:)``, if `state` still
    /// holds it (a task may have taken it over), and wakes the waiters: what ``releaseClaim(by:)`` does, for a
    /// copy, which never has an instance offered by its builder (only a custom scope's registration has).
    @inline(__always)
    func releaseScopeCopyClaim(by state: ResolutionState) {
        lock.lock()
        guard buildClaim.isHeld, buildClaim.admits(state) else { return lock.unlock() }
        _ = buildClaim.end()
        lock.unlock()
        BuildCoordinator.condition.broadcast()
    }

    /// Stores a new shared `instance` (also given erased) for `graph`, with a typed copy when the scope is
    /// `.container`, under one lock so that both are seen together. Returns false when the instance belongs to a
    /// scope that has ended meanwhile: it is not kept (see ``noteOwned(_:)``).
    @discardableResult
    func storeShared(_ instance: Service, erased: Any, inGraph graph: GraphIdentifier) -> Bool {
        if isScopeCopy { return storeScoped(instance, in: nil) }
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

    /// ``storeShared(_:erased:inGraph:)`` for a scope's copy, which keeps its instance in its typed slot alone
    /// (see `lockWithStorage()`), in the memory its last scope left (``spareSlot``) when there is some. The copy
    /// remembers how its instances are torn down (in ``knownTeardown``, read under the lock the store takes
    /// anyway): it is reused by later scopes (see `ServiceEntry+Spares.swift`), so its original is asked once per
    /// copy rather than once per scope. The instance is erased to `Any` only where that is needed: to read its
    /// dynamic type when `Service` is a protocol type (``opensInstances``), and to hand it over for teardown.
    ///
    /// `scope` is the copy's scope when the caller holds it (a resolve made on the scope itself), which spares
    /// reading ``_ServiceEntryBase/copyingScope``; nil otherwise.
    func storeScoped(_ instance: Service, in scope: Container?) -> Bool {
        lock.lock()
        var dropped: UnsafeMutablePointer<Service>?
        if !buildClaim.stale {
            // Allocating and copying the instance in (a retain) run no user code: both may happen under the lock.
            let slot = spareSlot ?? .allocate(capacity: 1)
            spareSlot = nil
            Self.fill(slot, with: instance)
            dropped = typedShared
            typedShared = slot
        }
        let (known, opens) = (knownTeardown, opensInstances)
        lock.unlock()
        Self.free(dropped)
        var kind = known?.kind
        if let known, known.type != Self.dynamicType(of: instance, opening: opens) { kind = nil }
        let teardown = kind ?? learnCopyTeardown(of: instance)
        // The scope unretained, borrowed from the caller where it has it: a local copy of either reference would
        // be retained (the resolve holds the scope, which holds its copies).
        let owner = scope.map { Unmanaged.passUnretained($0) } ?? copyingScope.map { Unmanaged.passUnretained($0) }
        return adopt(instance, kind: teardown, by: owner)
    }

    /// Hands this copy's new `instance` to its scope, `scope`, to tear down as `kind` says (or only to check that
    /// the scope still takes instances); discards the instance and returns false when the scope has ended.
    @inline(__always)
    private func adopt(_ instance: Service, kind: TeardownKind, by scope: Unmanaged<Container>?) -> Bool {
        let adopted = scope?._withUnsafeGuaranteedRef { scope in
            kind.needsTeardown
                ? scope.adoptScoped(instance, kind: kind, name: TeardownName(serviceType)) : scope.acceptsScoped()
        }
        guard adopted == true else {
            discardInstance()
            return false
        }
        return true
    }

    /// The dynamic type of `instance`: read from the instance, unless `opening` says that `Service` is a protocol
    /// type, whose value is then erased to `Any` first (read directly, its type would be the protocol's).
    @inline(__always)
    static func dynamicType(of instance: Service, opening: Bool) -> ObjectIdentifier {
        if holdsObjects { return object(instance)._withUnsafeGuaranteedRef { ObjectIdentifier(Swift.type(of: $0)) } }
        return opening ? ObjectIdentifier(Swift.type(of: instance as Any)) : ObjectIdentifier(Swift.type(of: instance))
    }

    /// How `instance` is torn down, as its original knows it, remembered by this scope's copy with its dynamic
    /// type, and whether that type is read only from the instance erased (see ``opensInstances``).
    func learnCopyTeardown(of instance: Service) -> TeardownKind {
        let erased: Any = instance
        let type = ObjectIdentifier(Swift.type(of: erased))
        // Erased, a protocol type's value gives its dynamic type; read directly, the protocol's, never the same.
        let opens = type != ObjectIdentifier(Swift.type(of: instance))
        let kind = teardownKind(of: erased)
        lock.withLock { (knownTeardown, opensInstances) = ((type, kind), opens) }
        return kind
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
    /// Nil for a scope's copy, which keeps its one instance in its typed slot alone (see ``keptLocked(_:graph:)``):
    /// a storage object would be one more allocation for every scope that uses the registration. Nil for a custom
    /// scope too (see ``usesGate``), whose storage is made and called through its gate with the lock let go.
    func lockWithStorage() -> (any InstanceStorage)? {
        lock.lock()
        if originalReference != nil || !behavior.isBuiltIn { return nil }
        if let madeStorage { return madeStorage }
        let made = scope.makeStorage()
        madeStorage = made
        return made
    }

    /// The instance kept for `graph`, read with the lock held: from `storage`, or from the typed slot of a scope's
    /// copy, which has no storage.
    func keptLocked(_ storage: (any InstanceStorage)?, graph: GraphIdentifier) -> Any? {
        if let storage { return storage.instance(inGraph: graph) }
        guard let typedShared else { return nil }
        return typedShared.pointee
    }

    /// For a scope's copy: drops the copy's instance when its original discarded instances since the copy's was
    /// claimed. A scope's instance is recorded as made with what its original's factory used, not as a dependent
    /// of its own (see ``Container/recordDependency(_:state:)``): discarding what it was made with reaches the
    /// original, and each copy then notices here, on its next use, that its instance is stale.
    ///
    /// The instance is taken out in the same hold of the lock that brings the count up to date: another thread of
    /// the scope that finds the count current must not find the stale instance still there. A copy keeps its
    /// instance in its typed slot alone (see `lockWithStorage()`).
    @usableFromInline func dropIfOriginalDiscarded() {
        guard let originalReference else { return }
        let current = originalReference._withUnsafeGuaranteedRef { $0.discardCount() }
        lock.lock()
        guard discards != current else { return lock.unlock() }
        discards = current
        // An instance being built now may have been made with what was discarded: it must not be kept.
        buildClaim.markStale()
        let typed = typedShared
        typedShared = nil
        lock.unlock()
        // Released outside the lock: a deinit may call back into the container.
        Self.free(typed)
    }
}
