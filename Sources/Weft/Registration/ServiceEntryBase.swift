import WeftAtomics

/// The type-erased view of a registration that the container works with. The engine uses
/// ``_ServiceEntryBase``, which conforms; the protocol stays because Swinject's own tests, run against Weft with
/// `@testable import` (`shared/tools/swinject-suite.sh`), name it in their debug helper and behavior fakes.
protocol ServiceEntryProtocol: AnyObject, Sendable {
    /// Describes the registration under `serviceKey`, as the container's description prints it.
    func describeWithKey(_ serviceKey: ServiceKey) -> String
    /// The scope the registration's instances live in.
    var objectScope: any ObjectScopeProtocol { get }
    /// The factory, as registered: `(Resolver, Args...) throws -> Any`.
    var factory: Any { get }
    /// Calls the factory of a registration without runtime arguments; nil if it takes arguments.
    func makeErased(_ resolver: Container) throws -> Any?
    /// The configuration a lookup caches: sharing policy, callbacks, and whether the factory takes only the
    /// resolver.
    var lookupConfiguration: (policy: SharingPolicy, hasInitCompleted: Bool, isPlain: Bool) { get }
    /// The type the registration was made for (forwarded types share the entry).
    var serviceType: Any.Type { get }
    /// The type of `(Resolver, Args...)`.
    var argumentsType: Any.Type { get }

    /// Looks for a usable instance, or claims the right to build one (see ``BuildClaim``).
    func claim(by state: ResolutionState, graph: GraphIdentifier, policy: SharingPolicy, coordinated: Bool)
        -> BuildClaim
    /// Gives up the claim `state` holds, if it holds it.
    func releaseClaim(by state: ResolutionState)
    /// The resolution building an instance right now, and the graph it builds in.
    var builder: (state: ResolutionState, graph: GraphIdentifier)? { get }
    /// Runs the registered `initCompleted` callbacks, in registration order, on `instance`.
    func runInitCompleted(resolver: any Resolver, instance: Any) throws
    /// The stored instance for `graph`, read under the registration's lock.
    func storedInstance(inGraph graph: GraphIdentifier) -> Any?
    /// Stores `instance` for `graph` under the registration's lock; false when it belongs to a scope that has
    /// ended meanwhile, which does not keep it.
    @discardableResult
    func store(_ instance: Any?, inGraph graph: GraphIdentifier) -> Bool
    /// Tells the storage that the graph `graph` is complete.
    func graphCompleted()
    /// Discards the stored instance.
    func discardInstance()
}

/// The registration as the resolution engine sees it. ``ServiceEntry`` is its only subclass; it is
/// public only because ``ServiceEntry`` is, and it has no members of its own to use.
///
/// The engine refers to registrations as `Unmanaged<_ServiceEntryBase>` on its hot path: a class reference
/// can be used without retaining it, which an existential cannot (retaining is an atomic operation on
/// memory every thread resolving the service shares).
///
/// Its configuration fields are set before the entry is published and never changed afterwards: they skip dynamic
/// exclusivity checks, which would cost each read a call into the runtime.
public class _ServiceEntryBase: @unchecked Sendable {
    /// The type the entry was registered for.
    public let serviceType: Any.Type
    /// The type of the factory's arguments, `(Resolver, Arg1, ...)`.
    public let argumentsType: Any.Type
    /// What an autoregistered service's initializer takes; nil for a closure registration. Set before the
    /// entry is published, never changed afterwards.
    @exclusivity(unchecked) var declaredDependencies: [DeclaredDependency]?
    /// The factory of a registration made with an `async` closure (an ``AsyncFactory``); nil for a
    /// synchronous one. Set before the entry is published, never changed afterwards.
    @exclusivity(unchecked) var asyncFactory: AsyncFactory?
    /// How many decorators wrap the factory (see `Decorator.swift`). Set before the entry is
    /// published, never changed afterwards.
    @exclusivity(unchecked) var decoratorCount = 0
    /// Whether this is the registration of a collection (see `Container+Collections.swift`). Set before the entry
    /// is published, never changed afterwards.
    @exclusivity(unchecked) var isCollection = false
    /// Whether this is the registration a decorated forwarded type resolves through (see
    /// `Container+ForwardDecoration.swift`). Set before the entry is published, never changed afterwards.
    @exclusivity(unchecked) var isDecoratedForward = false
    /// The decorated forwards of this registration, by the key of their forwarded type, whose scope follows its
    /// scope (see `Container+ForwardDecoration.swift`); guarded by the ``ServiceEntry``'s lock.
    @exclusivity(unchecked) var scopeFollowers: [ServiceKey: any ScopeFollowing]?
    /// Whether the factory was registered `@MainActor`: an async resolve then runs it on the main actor.
    @exclusivity(unchecked) var runsOnMainActor = false
    /// The container the registration belongs to, without keeping it alive: the first container it is added to (see
    /// ``Container/add(_:as:key:)``). Set under that container's lock before
    /// the registration is published, never changed afterwards.
    @exclusivity(unchecked) var owner: ContainerReference?
    /// Under how many keys the owner's registry holds this registration; guarded by the owner's lock. When it
    /// drops to 0 the registration is retired (see ``Container/add(_:as:key:)``).
    @exclusivity(unchecked) var keyCount = 0
    /// Tells registrations apart for ``ServiceEntry``'s memo of its last dependent; never reused, unlike an
    /// address. Drawn from the containers' counter: any unique number does.
    let serial = weft_next_container_serial()

    init(serviceType: Any.Type, argumentsType: Any.Type) {
        self.serviceType = serviceType
        self.argumentsType = argumentsType
    }

    /// The scope the registration's instances live in.
    public var objectScope: any ObjectScopeProtocol { abstract() }
    var factory: Any { abstract() }
    /// The factory when it takes runtime arguments, as the engine calls it (see ``ArgumentFactory``).
    var argumentFactory: ArgumentFactory? { nil }
    var lookupConfiguration: (policy: SharingPolicy, hasInitCompleted: Bool, isPlain: Bool) { abstract() }
    var builder: (state: ResolutionState, graph: GraphIdentifier)? { abstract() }
    func describeWithKey(_ serviceKey: ServiceKey) -> String { abstract() }
    func makeErased(_ resolver: Container) throws -> Any? { abstract() }
    func claim(by state: ResolutionState, graph: GraphIdentifier, policy: SharingPolicy, coordinated: Bool)
        -> BuildClaim
    { abstract() }
    func releaseClaim(by state: ResolutionState) { abstract() }
    /// Looks for this graph-scoped registration's instance in `graph`, or claims the right to build it there, while
    /// another graph's build holds the claim (see ``BuildClaimState``).
    func claim(inGraph graph: GraphIdentifier, by state: ResolutionState) -> BuildClaim { abstract() }
    /// The resolution building this graph-scoped registration's instance in `graph` right now, if any.
    func builder(inGraph graph: GraphIdentifier) -> ResolutionState? { abstract() }
    func runInitCompleted(resolver: any Resolver, instance: Any) throws { abstract() }
    func storedInstance(inGraph graph: GraphIdentifier) -> Any? { abstract() }
    /// The instance the build holding the claim has stored for `graph`, read without calling user code: the
    /// build coordination asks it under its own lock (see ``InstanceSlot``'s `offeredInstance`).
    func instanceOfBuilder(inGraph graph: GraphIdentifier) -> Any? { abstract() }
    @discardableResult
    func store(_ instance: Any?, inGraph graph: GraphIdentifier) -> Bool { abstract() }
    func graphCompleted() { abstract() }
    func discardInstance() { abstract() }
    /// How many times this registration's instances were discarded (see ``InstanceSlot``'s `discards`).
    func discardCount() -> UInt64 { abstract() }
    /// ``discardCount()`` and what ``teardownKnown(for:)`` knows, read in one hold of the lock.
    func discardCountAndTeardown() -> (discards: UInt64, teardown: KnownTeardown?) { abstract() }
    /// How instances of the dynamic type `type` are torn down, when this registration has checked that type.
    func teardownKnown(for type: ObjectIdentifier) -> TeardownKind? { abstract() }
    /// Remembers how instances of the dynamic type `type` are torn down.
    func rememberTeardown(_ kind: TeardownKind, for type: ObjectIdentifier) { abstract() }
    /// Whether and how `instance`, an instance of this registration, is torn down, remembered for its dynamic
    /// type (a registration's own instances, and its instances in a scope's slot).
    final func teardownKind(of instance: Any) -> TeardownKind {
        let type = ObjectIdentifier(Swift.type(of: instance))
        if let known = teardownKnown(for: type) { return known }
        let kind = TeardownKind.of(instance)
        rememberTeardown(kind, for: type)
        return kind
    }
    /// Records that a kept instance of `dependent` was made with an instance of this registration; returns
    /// false when this registration was retired (replaced or removed) meanwhile, so that nothing would discard
    /// `dependent` later: the caller then discards it at once.
    @discardableResult
    func addDependent(_ dependent: _ServiceEntryBase) -> Bool { abstract() }
    /// Looks for a usable instance, or claims the right to build one, for a task (see ``TaskClaim``): the same
    /// claim as ``claim(by:graph:policy:coordinated:)``, held by ``ResolutionState/asyncBuilder``.
    func claimForTask(key: ServiceKey, graph: GraphIdentifier) -> TaskClaim { abstract() }
    /// Notes that the task holding the claim with `build` is about to store its instance and run its
    /// `initCompleted` callbacks: from now on a synchronous resolve from another graph that finds the instance is
    /// told it is being completed.
    func beginTaskCompletion(_ build: AsyncBuild) { abstract() }
    /// Gives up the claim the task holds with `build`; returns whether the instance it made was kept (false when
    /// something it was made with was discarded meanwhile: the tasks waiting for it then build anew).
    func endTaskBuild(_ build: AsyncBuild) -> Bool { abstract() }
    /// Marks this registration as replaced or removed, before its dependents are discarded: a build that uses it
    /// afterwards is told by ``addDependent(_:)``.
    func retire() { abstract() }
    /// The registrations recorded by ``addDependent(_:)`` that still exist, forgetting them.
    func takeDependents() -> [_ServiceEntryBase] { abstract() }
    /// Registers a copy of this registration in `container` under `keys`: see ``ServiceEntry``'s.
    func copyForVerification(into container: Container, keys: [ServiceKey]) -> _ServiceEntryBase { abstract() }
    /// Stores an instance an async factory made, as ``store(_:inGraph:)`` does, with the typed copy that lets
    /// a synchronous resolve of a `.container` instance skip the dynamic cast.
    @discardableResult
    func storeMade(_ instance: Any, inGraph graph: GraphIdentifier) -> Bool { abstract() }

    /// A copy of the instance a ``ScopeSlot`` keeps for this registration as `bits`, erased.
    func erasedSlotInstance(_ bits: UnsafeMutableRawPointer) -> Any { abstract() }
    /// `instance`, as a ``ScopeSlot`` keeps an instance of this registration; nil when it is not one.
    func slotBits(ofErased instance: Any) -> UnsafeMutableRawPointer? { abstract() }

    /// Discards this registration's kept instance and, transitively, the kept instances that were made
    /// with it: a singleton never keeps a dependency whose registration was replaced or reset.
    func discardInstanceAndDependents(includingOwn: Bool = true) {
        if includingOwn { discardInstance() }
        var work = takeDependents()
        // Most registrations have no dependents: then nothing more is allocated.
        guard !work.isEmpty else { return }
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(self)]
        while let entry = work.popLast() {
            guard seen.insert(ObjectIdentifier(entry)).inserted else { continue }
            entry.discardInstance()
            work.append(contentsOf: entry.takeDependents())
        }
    }
}

extension _ServiceEntryBase: ServiceEntryProtocol {}

/// A registration as the engine keeps it on its hot path: not retained (see ``_ServiceEntryBase``).
@usableFromInline typealias EntryReference = Unmanaged<_ServiceEntryBase>

extension Unmanaged where Instance == _ServiceEntryBase {
    /// The registration, retained for as long as the caller uses it (off the hot path).
    var object: _ServiceEntryBase { takeUnretainedValue() }

    /// Whether both refer to the same registration.
    static func === (lhs: Self, rhs: Self) -> Bool {
        lhs.toOpaque() == rhs.toOpaque()
    }
}

private func abstract(function: StaticString = #function) -> Never {
    preconditionFailure("Weft: _ServiceEntryBase.\(function) is implemented by ServiceEntry")
}
