import WeftAtomics

/// A dependency-injection container: it keeps registrations of services and makes them,
/// injecting their dependencies.
///
/// ```swift
/// let container = Container()
/// container.register(AnimalType.self) { _ in Cat() }
/// container.register(PersonType.self) { r in PetOwner(pet: try r.require(AnimalType.self)) }
///
/// let owner = try container.require(PersonType.self)
/// ```
///
/// A container is `Sendable`: registering and resolving from many threads at once is safe, without
/// ``synchronize()``. A container may have a parent whose registrations it sees; the parent does not
/// see the child's.
public final class Container: @unchecked Sendable {
    /// The container whose registrations this one falls back to.
    var parent: Container? { parentLink.container }
    /// ``parent``, held in a struct: a stored `Container?` would make the compiler release the chain of parents in a
    /// loop whenever a container is released (a retain, a uniqueness check and two releases, where one release
    /// does). Only a long chain needs the loop (see ``releaseChain(from:)``). Read off the resolve hot path only
    /// (lookups are cached); set once, taken out only by a container's release. Guarded by nothing: no other
    /// thread can hold a container that is being released.
    @exclusivity(unchecked) private var parentLink: ParentLink
    /// How many containers are on the chain of parents above this one.
    private let chainDepth: UInt32
    /// What failures are reported to; nil for a scope, which reports to its parent's (copying an existential into
    /// every scope would cost each unit of work a copy and a destruction).
    private let ownDebugHelper: (any DebugHelper)?
    @usableFromInline let defaultObjectScope: ObjectScope
    /// Whether this is a `synchronize()`d view, which runs each registration's factory on one thread at a time.
    let synchronized: Bool
    /// For a scope for one unit of work (see ``makeScope()``): the nearest container on its chain of parents that
    /// is not a scope, whose lookups are the scope's while no scope has registrations of its own (see
    /// ``lookedThrough``). Unretained: the scope holds its parent, which holds its own. Nil for any other container.
    @usableFromInline let scopeBase: Unmanaged<Container>?
    /// Whether registrations were ever added to this scope: it is then counted among the scopes whose lookups
    /// are not simply their base's (see `weft_registering_scopes`) until it is released. Guarded by `lock`.
    @exclusivity(unchecked) private var countedAsRegisteringScope = false

    /// Whether this is a scope for one unit of work (see ``makeScope()``).
    @inlinable var isScope: Bool { scopeBase != nil }

    /// What failures are reported to: this container's, or the nearest parent's that has one.
    var debugHelper: any DebugHelper {
        var container = self
        while true {
            if let ownDebugHelper = container.ownDebugHelper { return ownDebugHelper }
            guard let parent = container.parent else { return LoggingDebugHelper() }
            container = parent
        }
    }

    /// Tells containers apart in per-thread lookup caches; never reused, unlike an address.
    @usableFromInline let serial = weft_next_container_serial()
    /// ``noArguments``, read from here on the hot path (a global is initialised lazily, checked on each use).
    @usableFromInline let noArgumentsType: Any.Type

    /// Guards `services`, `registrationRecord`, `lifetime` and `restoredGraph`; never held while user code runs.
    let lock = InlineLock()
    /// The registrations; inside the container rather than an object of its own, so that a scope (a container
    /// that seldom registers anything) costs one allocation less.
    @exclusivity(unchecked) var services = Registry()
    private var restoredGraph: GraphIdentifier?
    /// What the container owns for teardown, and a scope's slots of `.scoped` registrations; empty arrays
    /// until first needed, which cost no allocation. Guarded by `lock`.
    @exclusivity(unchecked) var lifetime = LifetimeRecord()
    /// What the container keeps for registering (see ``RegistrationRecord``); nil until first needed, so that a
    /// scope that registers nothing initialises and releases one field for all of it. Guarded by `lock`.
    @exclusivity(unchecked) var registrationRecord: RegistrationRecord?

    init(
        parent: Container? = nil,
        debugHelper: (any DebugHelper)?,
        defaultObjectScope: ObjectScope = .graph,
        synchronized: Bool = false,
        isScope: Bool = false
    ) {
        parentLink = ParentLink(container: parent)
        chainDepth = parent.map { $0.chainDepth &+ 1 } ?? 0
        ownDebugHelper = debugHelper
        self.defaultObjectScope = defaultObjectScope
        self.synchronized = synchronized
        scopeBase = isScope ? parent.map { $0.scopeBase ?? Unmanaged.passUnretained($0) } : nil
        // The parent's: the global's lazy initialisation check is a call, which every scope would pay.
        noArgumentsType = parent?.noArgumentsType ?? noArguments
    }

    /// Makes a container.
    ///
    /// - Parameters:
    ///   - parent: A container whose registrations this one sees (and whose singletons it shares).
    ///   - defaultObjectScope: The scope of registrations that do not set one; `.graph` unless given.
    ///   - behaviors: Behaviors told about every registration.
    ///   - registeringClosure: Registers services into the new container.
    public convenience init(
        parent: Container? = nil,
        defaultObjectScope: ObjectScope = .graph,
        behaviors: [any Behavior] = [],
        registeringClosure: (Container) -> Void = { _ in }
    ) {
        self.init(parent: parent, debugHelper: LoggingDebugHelper(), defaultObjectScope: defaultObjectScope)
        behaviors.forEach(addBehavior)
        registeringClosure(self)
    }

    /// Returns a resolver that builds each registration on one thread at a time: its factory and its
    /// `initCompleted` callbacks.
    ///
    /// A `Container` is already safe to use from many threads; this exists for code written for Swinject.
    /// Unlike Swinject's, the returned resolver has no global lock: a slow factory only delays callers that
    /// need that same registration. The returned resolver is a child container: registrations added to it
    /// stay in it.
    public func synchronize() -> any Resolver {
        Container(parent: self, debugHelper: debugHelper, defaultObjectScope: defaultObjectScope, synchronized: true)
    }

    /// Adds a behavior, told about each registration made after this call.
    public func addBehavior(_ behavior: any Behavior) {
        lock.withLock { registrationRecordLocked().behaviors.append(behavior) }
    }

    /// Whether a registration exists for `serviceType` under `name` (with any arguments), here or in a parent. The
    /// elements of a collection (``contribute(to:name:id:factory:)-(_,_,_,(Resolver)->Element)``) do not count for
    /// their own type, since no resolve of that type finds them; the collection counts for its type.
    public func hasAnyRegistration<Service>(of serviceType: Service.Type, name: String? = nil) -> Bool {
        let found = lock.withLock {
            services.containsKey {
                $0.serviceType == serviceType && $0.name == name && !($0.option is ContributionOption)
            }
        }
        return found || parent?.hasAnyRegistration(of: serviceType, name: name) == true
    }

    /// Discards the instances kept for registrations in `objectScope`, here and in the parents.
    ///
    /// ```swift
    /// container.resetObjectScope(.container)   // every singleton is made anew on next use
    /// ```
    public func resetObjectScope(_ objectScope: any ObjectScopeProtocol) {
        for entry in entries(where: { $1.objectScope === objectScope }) {
            entry.discardInstanceAndDependents()
        }
        parent?.resetObjectScope(objectScope)
    }

    /// Discards the instances kept for registrations in `objectScope`, here and in the parents.
    public func resetObjectScope(_ objectScope: ObjectScope) {
        resetObjectScope(objectScope as any ObjectScopeProtocol)
    }

    /// Discards the instances of `serviceType` kept in `objectScope`, here and in the parents.
    ///
    /// Unlike Swinject's, this reaches the parents even when this container has no registration of
    /// `serviceType` itself.
    public func resetObjectScope(_ objectScope: any ObjectScopeProtocol, serviceType: Any.Type) {
        let matching = entries(where: { key, _ in key.serviceType == serviceType })
        for entry in matching where entry.objectScope === objectScope {
            entry.discardInstanceAndDependents()
        }
        parent?.resetObjectScope(objectScope, serviceType: serviceType)
    }

    /// Discards the instances of `serviceType` kept in `objectScope`, here and in the parents.
    public func resetObjectScope(_ objectScope: ObjectScope, serviceType: Any.Type) {
        resetObjectScope(objectScope as any ObjectScopeProtocol, serviceType: serviceType)
    }

    // MARK: Registry access

    /// Stores `entry` under `key`, then tells the behaviors (outside the lock). A new registration (or a copy)
    /// belongs to the container it is first added to; a forwarded one keeps its own.
    func add<Service, Type>(_ entry: ServiceEntry<Service>, as type: Type.Type, key: consuming ServiceKey) {
        add(entry, as: type, key: key, quietly: false)
    }

    /// ``add(_:as:key:)``, without telling the behaviors when `quietly` (a decorated copy stored under a type an
    /// ancestor forwards, which no one registered here).
    @inline(__always)
    func add<Service, Type>(
        _ entry: ServiceEntry<Service>,
        as type: Type.Type,
        key: consuming ServiceKey,
        quietly: Bool
    ) {
        lock.lock()
        if isScope, !countedAsRegisteringScope {
            // Counted before the registration is visible: a lookup from a scope that sees it walks the chain.
            countedAsRegisteringScope = true
            weft_registering_scopes_add(1)
        }
        let record = registrationRecordLocked()
        // A container with decorators or collections adds through a path of its own (see
        // `Container+ComposedAdd.swift`), so that every other registration pays nothing for it.
        guard record.compositions == nil else {
            addComposedLocked(entry, as: type, key: key, quietly: quietly, record: record)
            return
        }
        let reference = referenceLocked(in: record)
        storeLocked(entry, as: type, key: key, quietly: quietly, record: record, reference: reference, composed: false)
    }

    /// The rest of ``add(_:as:key:quietly:)`` once the caller, holding `lock`, decided to store `entry` under `key`:
    /// stores it, lets go of the lock, retires what it replaced and tells the behaviors. `composed` (a container
    /// with compositions) moves the types forwarded to a registration a decorated copy replaced onto the copy, and
    /// tells the descendants that decorate; inlined into both paths, so that the ordinary one has none of it.
    @inline(__always)
    func storeLocked<Service, Type>(
        _ entry: ServiceEntry<Service>,
        as type: Type.Type,
        key: consuming ServiceKey,
        quietly: Bool,
        record: RegistrationRecord,
        reference: ContainerReference,
        composed: Bool
    ) {
        if entry.owner == nil { entry.owner = reference }
        // Most containers have no behaviors: then neither the list nor the key's name is copied (the key goes
        // into the registry without a copy).
        let told = record.behaviors.isEmpty || quietly ? nil : (record.behaviors, key.name)
        var replaced = services.updateValue(entry, forKey: key)
        if composed { moveForwardsLocked(to: entry, replacing: replaced, reference: reference) }
        if replaced === entry {
            replaced = nil
        } else if entry.owner === reference {
            entry.keyCount += 1
        }
        guard replaced != nil || told != nil else {
            lock.unlock()
            weft_registry_changed()
            if composed {
                tellDescendants()
                retireMovedOut()
            }
            return
        }
        // A registration forwarded under other keys is still in use: its owner counts its keys; one forwarded
        // here from another container is looked for. Only the owner retires a registration (the other
        // container may still hold it); either keeps it until no resolve can use it.
        var owned = false
        let unused =
            replaced.map { replaced in
                guard replaced.owner === reference else { return !services.contains(replaced) }
                owned = true
                replaced.keyCount -= 1
                return replaced.keyCount == 0
            } ?? false
        lock.unlock()
        weft_registry_changed()
        if composed { tellDescendants() }
        if unused, let replaced { keepRetired([replaced]) }
        // Outside the lock: the instances' deinits may call back into the container. Kept instances made
        // with the replaced registration go too, even when it stays in use under another key.
        if unused, owned { replaced?.retire() }
        replaced?.discardInstanceAndDependents(includingOwn: unused && owned)
        if composed { retireMovedOut() }
        guard let (toTell, name) = told else { return }
        for behavior in toTell {
            behavior.container(self, didRegisterType: type, toService: entry, withName: name)
        }
    }

    /// The weak reference to this container that its registrations share, kept in `record` (this container's),
    /// made on first use; the caller holds `lock`.
    func referenceLocked(in record: RegistrationRecord) -> ContainerReference {
        if let sharedReference = record.sharedReference { return sharedReference }
        let made = ContainerReference(self)
        record.sharedReference = made
        return made
    }

    /// The registration for `key` with its configuration; what the per-thread ``LookupCache`` keeps.
    @usableFromInline func lookUp(_ key: ServiceKey) -> Lookup? {
        guard let entry = entry(for: key) else { return nil }
        let (policy, hasCallbacks, isPlain) = entry.lookupConfiguration
        return Lookup(
            entry: .passUnretained(entry),
            policy: policy,
            hasCallbacks: hasCallbacks,
            exact: isPlain && entry.serviceType == key.serviceType && key.argumentsType == noArguments
        )
    }

    /// The registration for `key`, here or in the nearest parent that has one.
    func entry(for key: ServiceKey) -> (_ServiceEntryBase)? {
        var container: Container? = self
        while let current = container {
            if let entry = current.lock.withLock({ current.services[key] }) { return entry }
            container = current.parent
        }
        return nil
    }

    /// The registration stored under `key` in this container itself (not in a parent), if any.
    func ownEntry(for key: ServiceKey) -> _ServiceEntryBase? {
        lock.withLock { services[key] }
    }

    /// Whether `entry` is stored in this container itself (not in a parent), under any key.
    func holdsOwnRegistration(_ entry: _ServiceEntryBase) -> Bool {
        lock.withLock { services.contains(entry) }
    }

    /// Whether registrations were added to this container itself (not to a parent) and are still there.
    var hasOwnRegistrations: Bool {
        lock.withLock { services.count > 0 }
    }

    /// The registrations of this container that match `predicate`.
    func entries(
        where predicate: (ServiceKey, _ServiceEntryBase) -> Bool
    ) -> [_ServiceEntryBase] {
        lock.withLock { services.filter(predicate) }
    }

    /// The registrations of this container (not its parents) whose keys match `predicate`, with their keys.
    func ownRegistrations(where predicate: (ServiceKey) -> Bool) -> [(key: ServiceKey, entry: _ServiceEntryBase)] {
        lock.withLock { services.dictionary.filter { predicate($0.key) }.map { (key: $0.key, entry: $0.value) } }
    }

    /// The registrations of this container and its parents; a child's shadow its parents'.
    func allRegistrations() -> [ServiceKey: _ServiceEntryBase] {
        var result = parent?.allRegistrations() ?? [:]
        for (key, entry) in lock.withLock({ services.dictionary }) {
            result[key] = entry
        }
        return result
    }

    /// The registrations of this container only, for the description and diagnostics.
    func ownRegistrations() -> [ServiceKey: _ServiceEntryBase] {
        lock.withLock { services.dictionary }
    }

    /// Takes the graph set by ``restoreObjectGraph(_:)``, if any.
    func takeRestoredGraph() -> GraphIdentifier? {
        // Most resolves find no container with a restored graph without taking a lock.
        guard weft_restored_graphs() > 0 else { return nil }
        return lock.withLock {
            defer { setRestoredGraphLocked(nil) }
            return restoredGraph
        }
    }

    /// The graph set by ``restoreObjectGraph(_:)`` that the next resolve will use.
    var pendingRestoredGraph: GraphIdentifier? {
        lock.withLock { restoredGraph }
    }

    func setRestoredGraph(_ graph: GraphIdentifier?) {
        lock.withLock { setRestoredGraphLocked(graph) }
    }

    private func setRestoredGraphLocked(_ graph: GraphIdentifier?) {
        switch (restoredGraph, graph) {
        case (nil, .some): weft_restored_graphs_add(1)
        case (.some, nil): weft_restored_graphs_add(-1)
        default: break
        }
        restoredGraph = graph
    }

    deinit {
        // First: from here on no registration hands this container an instance to tear down.
        registrationRecord?.sharedReference?.containerIsGone()
        if restoredGraph != nil { weft_restored_graphs_add(-1) }
        if countedAsRegisteringScope { weft_registering_scopes_add(-1) }
        // An ended scope's slots are empty (see `finishEnd()`).
        if isScope, !lifetime.ended { lifetime.slots.releaseInstances() }
        if !lifetime.owned.isEmpty, !lifetime.ended {
            Container.log(.notTornDown(lifetime.owned.map(\.name.description), scope: isScope))
        }
        // Released one after the other rather than each from its child's release, which would nest once per
        // container on the chain (and overflow a small stack).
        if chainDepth >= Self.longChain { Self.releaseChain(from: parentLink.container.take()) }
    }
}

/// A container's parent (see ``Container/parent``).
private struct ParentLink {
    var container: Container?
}

extension Container {
    /// The depth from which a container releases its chain of parents itself (see ``releaseChain(from:)``): a
    /// shorter chain is released by nested releases, a few frames each.
    fileprivate static var longChain: UInt32 { 64 }

    /// Releases `start`, a container taken out of a released child, and each container above it that only the one
    /// below held, one after the other: each one's parent is taken out before it is released, so that its own
    /// release does not release its parent in turn.
    fileprivate static func releaseChain(from start: consuming Container?) {
        var next = start
        while next != nil, isKnownUniquelyReferenced(&next!) {
            let above = next.unsafelyUnwrapped.parentLink.container.take()
            next = above
        }
    }
}
