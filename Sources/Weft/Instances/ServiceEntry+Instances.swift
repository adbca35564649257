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

/// How a registration keeps a scope's instance in a ``ScopeSlot``, which knows no type: as one retained object,
/// which the slot releases without knowing its type. The instance itself when `Service` is a class (no
/// allocation, and no value witness to copy or destroy it), a ``SlotBox`` around it otherwise.
extension ServiceEntry {
    /// `instance`, copied into what a slot keeps.
    @inline(__always)
    static func slotBits(of instance: Service) -> UnsafeMutableRawPointer {
        if TypedCopy<Service>.holdsObjects { return TypedCopy<Service>.object(instance).retain().toOpaque() }
        return Unmanaged.passRetained(SlotBox(instance)).toOpaque()
    }

    /// A copy of the instance a slot keeps as `bits`.
    @inline(__always)
    static func slotInstance(_ bits: UnsafeMutableRawPointer) -> Service {
        if TypedCopy<Service>.holdsObjects {
            return withUnsafePointer(to: bits) { UnsafeRawPointer($0).load(as: Service.self) }
        }
        return Unmanaged<SlotBox<Service>>.fromOpaque(bits).takeUnretainedValue().value
    }

    /// Keeps `instance`, new, in `scope`'s slot at `position` (see
    /// ``Container/keepScoped(_:at:erased:kind:releasing:)``). `known` is what the registration knew of its instances'
    /// teardown when the build began, if the caller read it then (see ``_ServiceEntryBase/discardCountAndTeardown()``).
    @inline(__always)
    func keep(
        _ instance: Service,
        in scope: Container,
        at position: Int,
        known: KnownTeardown? = nil,
        releasing state: ResolutionState?
    ) -> Bool {
        scope.keepScoped(
            Self.slotBits(of: instance), at: position, erased: instance,
            kind: slotTeardownKind(of: instance, known: known), releasing: state)
    }

    /// How `instance`, a new instance of this registration, is torn down: remembered for its dynamic type, read
    /// typed (a class's type from the object itself), so that the usual instance costs no conformance lookup and
    /// is erased to `Any` only to be handed over for teardown.
    @inline(__always)
    func slotTeardownKind(of instance: Service, known: KnownTeardown?) -> TeardownKind {
        if TypedCopy<Service>.holdsObjects {
            let type = Self.dynamicType(of: instance)
            if let known, known.type == type { return known.kind }
            if let known = teardownKnown(for: type) { return known }
        }
        return teardownKind(of: instance)
    }

    /// The dynamic type of `instance`, a class instance (``holdsObjects``), read from the object.
    @inline(__always)
    static func dynamicType(of instance: Service) -> ObjectIdentifier {
        TypedCopy<Service>.object(instance)._withUnsafeGuaranteedRef { ObjectIdentifier(Swift.type(of: $0)) }
    }
}

/// A scope's instance of a service that is not a class, kept by its ``ScopeSlot`` as an object: released as any
/// object is, its deinit destroys the value as its type requires.
final class SlotBox<Value> {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// The claim to build a shared instance, as a task takes it: the same claim a thread takes (``BuildClaimState``),
/// held by ``ResolutionState/asyncBuilder`` with the ``AsyncBuild`` other tasks wait for. One claim per
/// registration for both kinds of builder, so that what a claim guards holds for both: a discard while the
/// instance is made marks the build stale, and a stale instance is handed to the resolve that made it but neither
/// kept nor handed to the tasks that waited for it. What a synchronous resolve finds while a task holds the claim
/// is decided by the claim (``BuildClaimState/lendsTaskInstance(to:)``).
extension ServiceEntry {
    /// See ``_ServiceEntryBase/claimForTask(key:graph:)``.
    func claimingForTask(key: ServiceKey, graph: GraphIdentifier) -> TaskClaim {
        let storage = lockWithStorage()
        let claim = slot.claimForTask(key: key, graph: graph, storage: storage, gated: storage == nil && usesGate)
        lock.unlock()
        return claim
    }

    /// See ``_ServiceEntryBase/endTaskBuild(_:)``.
    func endingTaskBuild(_ build: AsyncBuild) -> Bool {
        lock.lock()
        // Only a task takes a claim over (from a thread whose build is about to fail): the build still holds it.
        guard slot.buildClaim.taskBuild === build else {
            lock.unlock()
            return true
        }
        return endBuildAndUnlock()
    }
}
