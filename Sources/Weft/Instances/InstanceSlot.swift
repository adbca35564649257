/// What one registration's instances leave behind: the scope's storage (a built-in scope's, or a custom scope's
/// behind its gate), the typed copy of a `.container` instance, the claim to build the shared instance, the
/// registrations whose kept instances were made with one of its own, how its instances are torn down, and how
/// many times they were discarded. What the user configured lives apart, in the registration's
/// ``RegistrationConfiguration``.
///
/// A struct stored inline in its ``ServiceEntry``, not an object of its own: the hot path reads the typed copy and
/// the claim as the registration's own fields, with the same loads. Guarded by the registration's lock, which also
/// guards its configuration: every method here runs with that lock held and returns without letting go of it.
/// What a method hands back that may run user code when released or called (an instance, whose deinit may
/// resolve; a custom scope's storage) is the caller's to act on after the lock is released, and the steps that let
/// go of the lock in between are the registration's (see `ServiceEntry+CustomStorage.swift`).
///
/// The registration's code is not specialised for its service, which shapes this type. It is not generic: there a
/// generic struct of this many fields is destroyed through its value witness after a lookup of its generic
/// metadata, where a concrete one is not; so the typed copy is raw memory bound to `Service`, made, read and freed
/// by the registration (see ``TypedCopy``). And the methods the registration calls are inlined into it: a call
/// that is not would copy the struct (a method that does not mutate it) or hand back a tuple of optionals that is
/// destroyed through value witnesses.
@usableFromInline struct InstanceSlot {
    /// A built-in scope's storage, Weft's own code, called under the lock; nil until first needed.
    var madeStorage: (any InstanceStorage)?
    /// A custom scope's storage, user code, called through its gate with the lock let go (see ``GatedStorage``);
    /// nil until first needed.
    var gatedStorage: GatedStorage?
    /// For a custom scope: the instance the build holding the claim has stored, for a waiter that would
    /// otherwise close a cycle of waits (see ``offered(inGraph:)``), which must not call the storage.
    var offeredInstance: OfferedInstance?
    /// Who builds the shared instance now, a thread or a task, until the instance is complete (see
    /// ``BuildClaimState``).
    @usableFromInline var buildClaim = BuildClaimState()
    /// A typed copy of the instance kept by the `.container` scope, read without a dynamic cast: memory bound to
    /// the registration's `Service` (see ``TypedCopy``). A pointer rather than a `Service?`, whose every use in
    /// unspecialised code would request `Optional`'s metadata; untyped, so that the slot is not generic.
    @usableFromInline var typedShared: UnsafeMutableRawPointer?
    /// How many times this registration's instances were discarded (see ``beginDiscard()``): a scope's instance
    /// made under an older count is stale (see ``ScopeSlot``).
    private(set) var discards: UInt64 = 0
    /// Whether this registration was replaced or removed (see ``retire()``).
    private(set) var retired = false
    /// Registrations whose kept instances were made with an instance of this one (see ``DependentList``).
    private var dependents = DependentList()
    /// The dynamic type of the last instance checked for teardown and how such instances are torn down: finding
    /// out is two conformance lookups in the runtime, and a registration's instances are nearly always of one
    /// type.
    var knownTeardown: KnownTeardown?

    @inline(__always) init() {}

    /// Decides a claim (see ``_ServiceEntryBase/claim(by:graph:policy:coordinated:)``) for a registration whose
    /// storage is `storage`: a built-in scope's, or nil for a transient registration.
    @inline(__always)
    mutating func claim(
        by state: ResolutionState,
        graph: GraphIdentifier,
        policy: SharingPolicy,
        coordinated: Bool,
        storage: (any InstanceStorage)?
    ) -> BuildClaim {
        if !buildClaim.admits(state) {
            guard buildClaim.isHeldByTask else { return .busy }
            if policy != .transient, buildClaim.lendsTaskInstance(to: graph),
                let stored = storage?.instance(inGraph: graph)
            {
                return .stored(stored)
            }
            return buildClaim.refusalWhileTaskHolds
        }
        if policy != .transient, let stored = storage?.instance(inGraph: graph) { return .stored(stored) }
        guard coordinated, !buildClaim.isHeld else { return .free }
        // Graphs build their graph-scoped instances meanwhile: which graph's claim this is is decided by
        // ``claim(inGraph:by:storage:)``. Only for a graph-scoped request: a registration whose scope changed while
        // graphs built it (`inObjectScope` after `register`) is claimed as its scope is now, since a request of another
        // scope never reaches that step and would find nobody to wait for.
        if policy == .perGraph, buildClaim.hasGraphClaims { return .busy }
        buildClaim.take(by: state, graph: graph)
        return .claimed
    }

    /// Decides the claim of a graph-scoped instance in `graph` while a build holds the claim (see
    /// ``BuildClaimState``): `.busy` when another thread builds in `graph` (see ``BuildClaimState/builder(in:)``),
    /// `.free` when `state` does, otherwise the stored instance or the claim of `graph`'s build.
    @inline(__always)
    mutating func claim(
        inGraph graph: GraphIdentifier,
        by state: ResolutionState,
        storage: (any InstanceStorage)?
    ) -> BuildClaim {
        // A build in `graph` first: its instance may be stored already while its callbacks still run.
        if let builder = buildClaim.builder(in: graph) { return builder === state ? .free : .busy }
        if let stored = storage?.instance(inGraph: graph) { return .stored(stored) }
        buildClaim.take(inGraph: graph, by: state)
        return .claimed
    }

    /// Decides a task's claim (see ``_ServiceEntryBase/claimForTask(key:graph:)``). `gated`: the storage is a
    /// custom scope's, read by the task after the lock (`storage` is then nil).
    @inline(__always)
    mutating func claimForTask(
        key: ServiceKey,
        graph: GraphIdentifier,
        storage: (any InstanceStorage)?,
        gated: Bool
    ) -> TaskClaim {
        // A build in flight first: its instance may be stored already while its callbacks still run.
        if let taskBuild = buildClaim.taskBuild { return .wait(taskBuild) }
        if !gated, let stored = storage?.instance(inGraph: graph) { return .stored(stored) }
        let build = AsyncBuild(key: key)
        buildClaim.take(by: build, graph: graph)
        return .claimed(build, readStorageFirst: gated)
    }

    /// Ends the build in progress; returns whether it may keep its instance (it was not stale), and the instance
    /// offered while it ran, for the caller to release after the lock (a deinit may call back into the container).
    @inline(__always)
    mutating func endBuild() -> (kept: Bool, offered: OfferedInstance?) {
        let kept = buildClaim.end()
        let offered = offeredInstance
        offeredInstance = nil
        return (kept, offered)
    }

    /// Stores `instance` (nil: clears) for `graph` in the built-in scope's `storage`, unless the build was made
    /// stale; clearing also drops the typed copy, returned for the caller to free after the lock.
    @inline(__always)
    mutating func store(
        _ instance: Any?,
        in storage: (any InstanceStorage)?,
        graph: GraphIdentifier
    ) -> UnsafeMutableRawPointer? {
        if instance == nil || !buildClaim.isStale(in: graph) { storage?.setInstance(instance, inGraph: graph) }
        let dropped = instance == nil ? typedShared : nil
        if instance == nil { typedShared = nil }
        return dropped
    }

    /// Stores a new shared `instance` (also given erased) for `graph` in the built-in scope's `storage`, with a
    /// typed copy when `keepsTypedCopy` (the `.container` scope), unless the build was made stale. Returns the typed
    /// copy it replaces, for the caller to free after the lock.
    @inline(__always)
    mutating func storeShared<Service>(
        _ instance: Service,
        erased: Any,
        in storage: (any InstanceStorage)?,
        graph: GraphIdentifier,
        keepsTypedCopy: Bool
    ) -> UnsafeMutableRawPointer? {
        var copy: UnsafeMutableRawPointer?
        var dropped = copy
        if !buildClaim.stale {
            storage?.setInstance(erased, inGraph: graph)
            if keepsTypedCopy {
                if copy == nil { copy = UnsafeMutableRawPointer(TypedCopy<Service>.make(of: instance)) }
                dropped = typedShared
                typedShared = copy
            }
        }
        return dropped
    }

    /// Offers `instance` (nil: withdraws the offer), which a build in `graph` is storing in the custom scope's
    /// storage, to the waiters that must not call that storage; returns whether the build is stale (then nothing
    /// is offered, nor stored) and the offer replaced, for the caller to release after the lock.
    @inline(__always)
    mutating func offer(_ instance: Any?, inGraph graph: GraphIdentifier) -> (stale: Bool, replaced: OfferedInstance?) {
        let stale = buildClaim.stale
        var replaced: OfferedInstance?
        if instance == nil || (!stale && buildClaim.builds(in: graph)) {
            replaced = offeredInstance
            offeredInstance = instance.map(OfferedInstance.init)
        }
        return (stale, replaced)
    }

    /// The instance the build holding the claim has offered for `graph`, if it builds there.
    @inline(__always)
    func offered(inGraph graph: GraphIdentifier) -> Any? {
        buildClaim.builds(in: graph) ? offeredInstance?.value : nil
    }

    /// What a registration finishes after its lock once a graph is complete (see ``completeGraph()``): the custom
    /// scope's storage to tell, and the instances the built-in storage let go of or read, released after the lock
    /// (a deinit may call back into the container).
    struct GraphCompletion {
        let gated: GatedStorage?
        /// The instance the storage held strongly for the graph, which a `.graph` storage lets go of now.
        let held: Any?
        /// What a `.graph` storage read to forget the graphs whose instances are gone: each read is a strong
        /// reference, the last one when the thread that held the instance has let go of it meanwhile.
        let read: [Any]
    }

    /// Tells the built-in scope's storage that the graph is complete; returns what the caller finishes after the
    /// lock. Nil when the registration has no storage yet.
    @inline(__always)
    mutating func completeGraph() -> GraphCompletion? {
        guard hasStorage else { return nil }
        let held = madeStorage?.instance
        // Of the built-in storages, only `GraphStorage` reads instances other than the one it holds.
        guard let graphStorage = madeStorage as? GraphStorage else {
            madeStorage?.graphResolutionCompleted()
            return GraphCompletion(gated: gatedStorage, held: held, read: [])
        }
        return GraphCompletion(gated: gatedStorage, held: held, read: graphStorage.completeGraphHandingBackReads())
    }

    /// Begins a discard: marks the build in progress stale (it may already hold what is being discarded), counts
    /// the discard, and takes out the typed copy, returned for the caller to free after the lock.
    @inline(__always)
    mutating func beginDiscard() -> UnsafeMutableRawPointer? {
        buildClaim.markStale()
        // Scopes' slots compare their count with this one (see `ScopeSlot`).
        discards &+= 1
        let typed = typedShared
        typedShared = nil
        return typed
    }

    /// Whether a storage was made: a registration never resolved has none, so holds no instance.
    var hasStorage: Bool {
        @inline(__always) get { madeStorage != nil || gatedStorage != nil }
    }

    /// Starts the count of discards at `count`: a copy of a registration (see ``ServiceEntry``'s `copy()`) carries
    /// on the count of the one it copies.
    @inline(__always)
    mutating func continueDiscards(from count: UInt64) {
        discards = count
    }

    /// Marks the registration as replaced or removed (see ``_ServiceEntryBase/retire()``).
    @inline(__always)
    mutating func retire() {
        retired = true
    }

    /// Records that a kept instance of `dependent` was made with an instance of this registration; false when the
    /// registration was retired (see ``_ServiceEntryBase/addDependent(_:)``).
    @inline(__always)
    mutating func addDependent(_ dependent: _ServiceEntryBase) -> Bool {
        guard !retired else { return false }
        dependents.add(dependent)
        return true
    }

    /// The dependents recorded by ``addDependent(_:)`` that still exist, forgetting them.
    @inline(__always)
    mutating func takeDependents() -> [_ServiceEntryBase] {
        dependents.take()
    }

    /// How instances of the dynamic type `type` are torn down, when the last one checked was of that type.
    @inline(__always)
    func teardownKnown(for type: ObjectIdentifier) -> TeardownKind? {
        guard let knownTeardown, knownTeardown.type == type else { return nil }
        return knownTeardown.kind
    }

    /// Empties the slot of its storages and typed copy, for a new scope: returned for the caller to release after
    /// the lock.
    mutating func takeStorages() -> (
        made: (any InstanceStorage)?, typed: UnsafeMutableRawPointer?, gated: GatedStorage?
    ) {
        defer {
            madeStorage = nil
            typedShared = nil
            gatedStorage = nil
        }
        return (madeStorage, typedShared, gatedStorage)
    }
}

/// The typed copy a slot keeps of a `.container` instance (``InstanceSlot/typedShared``), and how a class instance
/// is copied and destroyed without its value witnesses: this code is not specialised for `Service`. A namespace
/// without cases, so that calling it needs no metadata of its own.
@usableFromInline enum TypedCopy<Service> {
    /// A typed copy of `instance` in memory of its own (see ``InstanceSlot/typedShared``).
    static func make(of instance: Service) -> UnsafeMutablePointer<Service> {
        let copy = UnsafeMutablePointer<Service>.allocate(capacity: 1)
        fill(copy, with: instance)
        return copy
    }

    /// Destroys and frees a typed copy (outside the lock: a deinit may call back into the container).
    @inline(__always)
    static func free(_ copy: UnsafeMutableRawPointer?) {
        guard let copy = copy?.assumingMemoryBound(to: Service.self) else { return }
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
}

/// The registrations whose kept instances were made with an instance of one registration, so that discarding
/// that instance discards theirs too (see ``_ServiceEntryBase/discardInstanceAndDependents(includingOwn:)``).
/// Guarded by the registration's lock; refers to each dependent weakly, since a dependent may be removed first.
///
/// The same dependent is recorded again by every instance it makes (a scope's, each request): the list
/// remembers the ``_ServiceEntryBase/serial`` of the last one added, and comparing a number spares loading each
/// weak reference (through its side table) to find it already there. Sound because serials are never reused and
/// the list only loses entries when taken.
struct DependentList {
    private var dependents: [WeakReference<_ServiceEntryBase>] = []
    /// The serial of the last dependent added since the list was last taken; 0 for none.
    private var last: UInt64 = 0

    /// Records `dependent` unless it is in the list already; dependents released since are dropped.
    mutating func add(_ dependent: _ServiceEntryBase) {
        guard dependent.serial != last else { return }
        last = dependent.serial
        guard !dependents.contains(where: { $0.object === dependent }) else { return }
        dependents.removeAll { $0.object == nil }
        dependents.append(WeakReference(dependent))
    }

    /// The dependents that still exist, emptying the list.
    mutating func take() -> [_ServiceEntryBase] {
        guard !dependents.isEmpty else { return [] }
        defer { self = DependentList() }
        return dependents.compactMap(\.object)
    }
}
