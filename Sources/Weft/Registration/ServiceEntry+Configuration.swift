import WeftAtomics

/// A registration's configuration after `register` (its scope and `initCompleted` callbacks), the copy a
/// verification makes of it, and the handing of the instances it keeps to the container that tears them down.
extension ServiceEntry {
    /// Sets the object scope in which instances of this registration are shared.
    ///
    /// - Parameter objectScope: `.transient`, `.graph` (the default), `.container`, `.weak`, or a custom scope.
    /// - Returns: `self`, to chain further configuration.
    @discardableResult
    public func inObjectScope(_ objectScope: any ObjectScopeProtocol) -> Self {
        let dropped = lock.withLock {
            let replaced = configuration
            configuration = configuration.inScope(objectScope)
            return (slot.takeStorages(), scopeFollowers, replaced)
        }
        weft_registry_changed()
        // Released outside the lock: a deinit may call back into the container (an instance's, or the replaced
        // scope object's when this registration held its last reference).
        TypedCopy<Service>.free(dropped.0.typed)
        withExtendedLifetime(dropped.0.made) {}
        withExtendedLifetime(dropped.0.gated) {}
        withExtendedLifetime(dropped.2) {}
        // A decorated forward keeps its instances in the scope of the registration it forwards to.
        for follower in (dropped.1 ?? [:]).values { follower.inObjectScope(objectScope) }
        return self
    }

    /// Sets the object scope in which instances of this registration are shared.
    ///
    /// The same as ``inObjectScope(_:)-(ObjectScopeProtocol)``, so that `.container` and friends can be written
    /// without the type name.
    @discardableResult
    public func inObjectScope(_ objectScope: ObjectScope) -> Self {
        inObjectScope(objectScope as any ObjectScopeProtocol)
    }

    /// Adds a callback that runs on every new instance after the factory has made it; the place
    /// for property and method injection and for closing circular dependencies.
    ///
    /// Callbacks run in the order they were added. The callback may throw: the resolution then fails
    /// with a ``ResolutionError`` that keeps the error as its cause. Weft runs the callbacks of an
    /// instance once no factory of the current object graph is still running, so that a cycle closed
    /// here never makes a factory run twice.
    ///
    /// - Parameter completed: Receives a resolver and the new instance.
    /// - Returns: `self`, to chain further configuration.
    @discardableResult
    public func initCompleted(_ completed: @escaping (any Resolver, Service) throws -> Void) -> Self {
        let followers = lock.withLock {
            configuration = configuration.addingInitCompleted(completed)
            return scopeFollowers
        }
        weft_registry_changed()
        // A decorated copy resolves in this registration's place (see `DecoratedCopies.swift`).
        for case let follower as any CallbackFollowing in (followers ?? [:]).values {
            follower.followInitCompleted(completed)
        }
        return self
    }

    /// A registration with this one's factory, scope, callbacks and declared dependencies, and no instances, that
    /// belongs to the container it is first added to.
    func copy() -> ServiceEntry<Service> {
        let copy =
            isPlain
            ? ServiceEntry(serviceType: Service.self, plainFactory: plainFactory, objectScope: .graph)
            : ServiceEntry(serviceType: Service.self, argumentsType: argumentsType, factory: factory)
        lock.withLock {
            copy.configuration = configuration
            copy.slot.continueDiscards(from: slot.discards)
        }
        copy.declaredDependencies = declaredDependencies
        copy.decoratedFactory = decoratedFactory
        copy.decoratorCount = decoratorCount
        copy.asyncFactory = asyncFactory
        copy.runsOnMainActor = runsOnMainActor
        return copy
    }

    /// Hands a new instance that the container keeps (`.container`) and that adopts ``Teardown`` or
    /// ``AsyncTeardown`` to its container, which tears it down when it ends. (A scope's instance is handed to its
    /// scope by its ``ScopeSlot``.)
    func noteOwned(_ instance: Any) -> Bool {
        let kind = teardownKind(of: instance)
        guard kind.needsTeardown, lock.withLock({ configuration.behavior.keptByContainer }) else { return true }
        let owned = OwnedInstance(instance: instance, kind: kind, name: TeardownName(serviceType))
        // A container that is gone has nothing to tear down; the instance is released with the registration.
        owner?.withContainer { $0.adoptForTeardown(owned) }
        return true
    }
}
