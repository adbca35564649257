import WeftAtomics

/// One registration, returned by `register` so that it can be configured further:
/// its object scope, its `initCompleted` callbacks, the other types it implements.
///
/// ```swift
/// container.register(Logger.self) { _ in ConsoleLogger() }
///     .inObjectScope(.container)
///     .initCompleted { r, logger in logger.level = try r.require(Level.self) }
/// ```
public final class ServiceEntry<Service>: _ServiceEntryBase, @unchecked Sendable {
    /// The factory of a registration without runtime arguments, typed (when ``erasedFactory`` is nil), as
    /// registered. A `let`: calling a stored closure that cannot change borrows it, where a `var` would be
    /// retained and released around every call.
    let plainFactory: (any Resolver) throws -> Service
    /// ``plainFactory`` wrapped in the container's decorators (see `CompositionTable.swift`); read only when
    /// ``_ServiceEntryBase/decoratorCount`` is not zero. Set before the registration is published, never after.
    @exclusivity(unchecked) var decoratedFactory: ((any Resolver) throws -> Service)?
    /// The factory of other registrations, erased; nil when ``plainFactory`` is the registered factory. Set
    /// before the registration is published (decorators wrap it then), never after. Read through ``factory``,
    /// which returns it as an owned `Any` either way.
    @exclusivity(unchecked) var erasedFactory: ErasedFactory?
    var isPlain: Bool { erasedFactory == nil }

    /// Guards every `var` below, which are therefore marked `@exclusivity(unchecked)`: the lock already excludes
    /// overlapping access, and a dynamic check would cost each access a call into the runtime.
    @usableFromInline let lock = InlineLock()
    /// What the user configured: scope and `initCompleted` callbacks (see ``RegistrationConfiguration``), swapped
    /// whole, never changed in place. Paths that need one field read that field, under the lock.
    @exclusivity(unchecked) var configuration: RegistrationConfiguration<Service>
    /// What this registration's instances leave behind: storage, typed copy, build claim, dependents, teardown
    /// knowledge, discards (see ``InstanceSlot``). Inline, so that the hot path reads its fields as this object's
    /// own.
    @usableFromInline @exclusivity(unchecked) var slot = InstanceSlot()

    init(
        serviceType: Service.Type,
        argumentsType: Any.Type,
        factory: Any,
        objectScope: ObjectScope = .graph
    ) {
        self.erasedFactory = ErasedFactory(factory)
        self.plainFactory = { _ in preconditionFailure("Weft: not a registration without arguments") }
        self.configuration = RegistrationConfiguration(scope: objectScope)
        // `Service` itself, not the metatype value passed, which may be a subclass's (`register(type(of: base))`):
        // a lookup is exact, and read back unchecked as `Service`, only for a key of this very type.
        super.init(serviceType: Service.self, argumentsType: argumentsType)
    }

    @usableFromInline
    init(
        serviceType: Service.Type,
        plainFactory: @escaping (any Resolver) throws -> Service,
        objectScope: ObjectScope
    ) {
        // Read first: the global's lazy initialisation check is a call that the optimizer cannot move the
        // parameters' releases across, so each stored parameter would be retained and released again.
        let argumentsType = noArguments
        self.erasedFactory = nil
        self.plainFactory = plainFactory
        self.configuration = RegistrationConfiguration(scope: objectScope)
        // As in the other initializer: the registration's type is `Service` itself.
        super.init(serviceType: Service.self, argumentsType: argumentsType)
    }

    override var factory: Any {
        if isPlain {
            let made = decoratorCount != 0 ? decoratedFactory ?? plainFactory : plainFactory
            return PlainFactory { resolver in try made(resolver) }
        }
        return erasedFactory?.value as Any
    }

    override var argumentFactory: ArgumentFactory? { erasedFactory?.arguments }

    override func makeErased(_ resolver: Container) throws -> Any? {
        guard isPlain else { return nil }
        return try makePlain(resolver)
    }

    /// Calls the factory of a registration without runtime arguments: the decorated one when there is one. (The
    /// engine's exact paths call ``plainFactory`` directly: a decorated registration is never an exact lookup.)
    func makePlain(_ resolver: any Resolver) throws -> Service {
        if decoratorCount != 0, let decoratedFactory { return try decoratedFactory(resolver) }
        return try plainFactory(resolver)
    }

    override func storeMade(_ instance: Any, inGraph graph: GraphIdentifier) -> Bool {
        if lock.withLock({ configuration.policy == .shared }), let typed = instance as? Service {
            return storeShared(typed, erased: instance, inGraph: graph)
        }
        return store(instance, inGraph: graph)
    }

    override var lookupConfiguration: (policy: SharingPolicy, hasInitCompleted: Bool, isPlain: Bool) {
        lock.lock()
        defer { lock.unlock() }
        // A decorated registration is not offered as plain: the engine's exact paths call `plainFactory` inline,
        // and its decorated factory is reached through the erased one (`makeErased`).
        return (configuration.policy, configuration.hasCallbacks, isPlain && decoratorCount == 0)
    }

    /// The object scope instances of this registration live in (`.graph` unless changed).
    public override var objectScope: any ObjectScopeProtocol {
        lock.withLock { configuration.scope }
    }

    override func claim(by state: ResolutionState, graph: GraphIdentifier, policy: SharingPolicy, coordinated: Bool)
        -> BuildClaim
    {
        let storage: (any InstanceStorage)?
        if policy == .transient {
            lock.lock()
            storage = nil
        } else {
            storage = lockWithStorage()
            if storage == nil, usesGate {
                lock.unlock()
                return claimThroughGate(by: state, graph: graph, coordinated: coordinated)
            }
        }
        defer { lock.unlock() }
        return slot.claim(by: state, graph: graph, policy: policy, coordinated: coordinated, storage: storage)
    }

    override func releaseClaim(by state: ResolutionState) {
        lock.lock()
        guard slot.buildClaim.isHeld, slot.buildClaim.admits(state) else {
            // A build in a graph other than the claimant's (see ``BuildClaimState``).
            let ended = slot.buildClaim.hasGraphClaims && slot.buildClaim.endGraphClaim(by: state)
            lock.unlock()
            if ended { BuildCoordinator.condition.broadcast() }
            return
        }
        _ = endBuildAndUnlock()
    }

    override func claim(inGraph graph: GraphIdentifier, by state: ResolutionState) -> BuildClaim {
        let storage = lockWithStorage()
        defer { lock.unlock() }
        return slot.claim(inGraph: graph, by: state, storage: storage)
    }

    override func builder(inGraph graph: GraphIdentifier) -> ResolutionState? {
        lock.withLock { slot.buildClaim.builder(in: graph) }
    }

    /// Ends the build in progress (the caller holds the lock) and lets go of the lock; wakes the waiters, and
    /// releases the instance offered while it ran outside the lock, since a deinit may call back into the
    /// container. Returns whether the build may keep its instance (it was not stale).
    func endBuildAndUnlock() -> Bool {
        let (kept, offered) = slot.endBuild()
        lock.unlock()
        BuildCoordinator.condition.broadcast()
        withExtendedLifetime(offered) {}
        return kept
    }

    override var builder: (state: ResolutionState, graph: GraphIdentifier)? {
        lock.withLock { slot.buildClaim.holder }
    }

    override func runInitCompleted(resolver: any Resolver, instance: Any) throws {
        guard let actions = lock.withLock({ configuration.initCompletedActions }) else { return }
        guard let service = instance as? Service else { return }
        for action in actions {
            try action(resolver, service)
        }
    }

    override func instanceOfBuilder(inGraph graph: GraphIdentifier) -> Any? {
        offeredByBuilder(inGraph: graph)
    }

    override func storedInstance(inGraph graph: GraphIdentifier) -> Any? {
        let storage = lockWithStorage()
        if storage == nil, usesGate {
            lock.unlock()
            return madeGatedStorage().instance(inGraph: graph)
        }
        defer { lock.unlock() }
        return keptLocked(storage, graph: graph)
    }

    override func store(_ instance: Any?, inGraph graph: GraphIdentifier) -> Bool {
        let storage = lockWithStorage()
        if storage == nil, usesGate {
            let shared = configuration.policy == .shared
            lock.unlock()
            storeThroughGate(instance, inGraph: graph)
            if shared, let instance { return noteOwned(instance) }
            return true
        }
        let dropped = slot.store(instance, in: storage, graph: graph)
        let shared = configuration.policy == .shared
        lock.unlock()
        TypedCopy<Service>.free(dropped)
        if shared, let instance { return noteOwned(instance) }
        return true
    }

    override func graphCompleted() {
        lock.lock()
        guard let completion = slot.completeGraph() else { return lock.unlock() }
        lock.unlock()
        completion.gated?.graphCompleted()
        // Released outside the lock: a deinit may call back into the container.
        withExtendedLifetime((completion.held, completion.read)) {}
    }

    deinit {
        TypedCopy<Service>.free(slot.typedShared)
    }

    override func discardInstance() {
        // Without a closure: one capturing a typed optional would look up its generic metadata on each call.
        lock.lock()
        // A built-in scope's storage not made yet holds nothing: none is made just to be emptied. A custom
        // scope's factory may hand out a storage that already holds an instance, which a reset must clear.
        if usesGate, slot.gatedStorage == nil {
            lock.unlock()
            _ = madeGatedStorage()
            lock.lock()
        }
        // An instance being built now may already hold what is being discarded: it must not be kept.
        let typed = slot.beginDiscard()
        // A registration never resolved has no storage: nothing more to take out.
        guard slot.hasStorage else {
            lock.unlock()
            return TypedCopy<Service>.free(typed)
        }
        var instance: Any?
        if let storage = slot.madeStorage {
            instance = storage.instance
            storage.instance = nil
        }
        let (gated, offered) = (slot.gatedStorage, slot.offeredInstance)
        slot.offeredInstance = nil
        lock.unlock()
        // Released outside the lock: a deinit may call back into the container.
        TypedCopy<Service>.free(typed)
        let taken = gated?.takeInstance()
        withExtendedLifetime(instance) {}
        withExtendedLifetime(offered) {}
        withExtendedLifetime(taken) {}
    }

    override func discardCount() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return slot.discards
    }

    override func discardCountAndTeardown() -> (discards: UInt64, teardown: KnownTeardown?) {
        lock.lock()
        defer { lock.unlock() }
        return (slot.discards, slot.knownTeardown)
    }

    override func teardownKnown(for type: ObjectIdentifier) -> TeardownKind? {
        lock.lock()
        defer { lock.unlock() }
        return slot.teardownKnown(for: type)
    }

    override func rememberTeardown(_ kind: TeardownKind, for type: ObjectIdentifier) {
        lock.withLock { slot.knownTeardown = (type, kind) }
    }

    override func addDependent(_ dependent: _ServiceEntryBase) -> Bool {
        lock.withLock { slot.addDependent(dependent) }
    }

    override func claimForTask(key: ServiceKey, graph: GraphIdentifier) -> TaskClaim {
        claimingForTask(key: key, graph: graph)
    }

    override func beginTaskCompletion(_ build: AsyncBuild) {
        lock.withLock { slot.buildClaim.beginTaskCompletion(build) }
    }

    override func endTaskBuild(_ build: AsyncBuild) -> Bool {
        endingTaskBuild(build)
    }

    override func retire() {
        lock.withLock { slot.retire() }
    }

    override func takeDependents() -> [_ServiceEntryBase] {
        lock.withLock { slot.takeDependents() }
    }

    /// Registers a copy of this registration in `container` under `keys`, for verification to build in: the
    /// same factory, scope, `initCompleted` callbacks and declared dependencies, but no instances.
    override func copyForVerification(into container: Container, keys: [ServiceKey]) -> _ServiceEntryBase {
        let copy = copy()
        for key in keys { container.add(copy, as: Service.self, key: key) }
        return copy
    }

    // A scope's slot keeps its instance as `ServiceEntry+Instances.swift` says.
    override func erasedSlotInstance(_ bits: UnsafeMutableRawPointer) -> Any {
        Self.slotInstance(bits)
    }

    override func slotBits(ofErased instance: Any) -> UnsafeMutableRawPointer? {
        guard let typed = instance as? Service else { return nil }
        return Self.slotBits(of: typed)
    }

    override func describeWithKey(_ serviceKey: ServiceKey) -> String {
        // Described outside the lock: a custom scope's description is user code.
        lock.lock()
        let scope: any ObjectScopeProtocol = configuration.scope
        let callbacks = configuration.initCompletedActions?.count ?? 0
        lock.unlock()
        let scopeText = "\(scope)"
        var text = "Service: \(serviceType)"
        if let name = serviceKey.name { text += ", Name: \"\(name)\"" }
        if let option = serviceKey.option { text += ", \(option)" }
        text += ", Factory: \(serviceKey.argumentsType) -> \(serviceKey.serviceType), ObjectScope: \(scopeText)"
        if callbacks > 0 { text += ", InitCompleted: Specified \(callbacks) closures" }
        return text
    }
}
