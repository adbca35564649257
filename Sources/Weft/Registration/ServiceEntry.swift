/// The type-erased view of a registration that the container works with.
protocol ServiceEntryProtocol: AnyObject, Sendable {
    /// Describes the registration under `serviceKey`, as the container's description prints it.
    func describeWithKey(_ serviceKey: ServiceKey) -> String
    /// The scope the registration's instances live in.
    var objectScope: any ObjectScopeProtocol { get }
    /// The factory, as registered: `(Resolver, Args...) throws -> Any`.
    var factory: Any { get }
    /// The type the registration was made for (forwarded types share the entry).
    var serviceType: Any.Type { get }
    /// The type of `(Resolver, Args...)`.
    var argumentsType: Any.Type { get }

    /// How the registration's scope shares instances, and whether it has `initCompleted` callbacks.
    var behavior: (policy: SharingPolicy, hasInitCompleted: Bool) { get }
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
    /// Stores `instance` for `graph` under the registration's lock.
    func store(_ instance: Any?, inGraph graph: GraphIdentifier)
    /// Tells the storage that the graph `graph` is complete.
    func graphCompleted()
    /// Discards the stored instance.
    func discardInstance()
}

/// One registration, returned by `register` so that it can be configured further:
/// its object scope, its `initCompleted` callbacks, the other types it implements.
///
/// ```swift
/// container.register(Logger.self) { _ in ConsoleLogger() }
///     .inObjectScope(.container)
///     .initCompleted { r, logger in logger.level = try r.require(Level.self) }
/// ```
public final class ServiceEntry<Service>: ServiceEntryProtocol, @unchecked Sendable {
    /// The type the entry was registered for.
    public let serviceType: Any.Type
    /// The type of the factory's arguments, `(Resolver, Arg1, ...)`.
    public let argumentsType: Any.Type

    let factory: Any
    weak var container: Container?

    private let lock = Lock()
    private var scope: any ObjectScopeProtocol
    private var madeStorage: (any InstanceStorage)?
    private var initCompletedActions: [(any Resolver, Service) throws -> Void] = []
    // Kept beside `scope` and `initCompletedActions` so the hot path reads no generic array or existential.
    private var policy: SharingPolicy
    private var hasCallbacks = false
    /// The resolution that claimed the right to build the shared instance, until the instance is complete.
    private var building: (state: ResolutionState, graph: GraphIdentifier)?

    init(
        serviceType: Service.Type,
        argumentsType: Any.Type,
        factory: Any,
        objectScope: ObjectScope = .graph
    ) {
        self.serviceType = serviceType
        self.argumentsType = argumentsType
        self.factory = factory
        self.scope = objectScope
        self.policy = Self.policy(of: objectScope)
    }

    /// The object scope instances of this registration live in (`.graph` unless changed).
    public var objectScope: any ObjectScopeProtocol {
        lock.withLock { scope }
    }

    private func storageLocked() -> any InstanceStorage {
        if let madeStorage { return madeStorage }
        let made = scope.makeStorage()
        madeStorage = made
        return made
    }

    var behavior: (policy: SharingPolicy, hasInitCompleted: Bool) {
        lock.lock()
        defer { lock.unlock() }
        return (policy, hasCallbacks)
    }

    private static func policy(of scope: any ObjectScopeProtocol) -> SharingPolicy {
        if scope === ObjectScope.transient { return .transient }
        if scope === ObjectScope.graph { return .perGraph }
        return .shared
    }

    func claim(by state: ResolutionState, graph: GraphIdentifier, policy: SharingPolicy, coordinated: Bool)
        -> BuildClaim
    {
        lock.withLock {
            if let building = building, building.state !== state { return .busy }
            if policy != .transient, let stored = storageLocked().instance(inGraph: graph) { return .stored(stored) }
            guard coordinated, building == nil else { return .free }
            building = (state, graph)
            return .claimed
        }
    }

    func releaseClaim(by state: ResolutionState) {
        let released = lock.withLock {
            guard let building, building.state === state else { return false }
            self.building = nil
            return true
        }
        if released { BuildCoordinator.condition.broadcast() }
    }

    var builder: (state: ResolutionState, graph: GraphIdentifier)? {
        lock.withLock { building }
    }

    /// Sets the object scope in which instances of this registration are shared.
    ///
    /// - Parameter objectScope: `.transient`, `.graph` (the default), `.container`, `.weak`, or a custom scope.
    /// - Returns: `self`, to chain further configuration.
    @discardableResult
    public func inObjectScope(_ objectScope: any ObjectScopeProtocol) -> Self {
        lock.withLock {
            scope = objectScope
            policy = Self.policy(of: objectScope)
            madeStorage = nil
        }
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
        lock.withLock {
            initCompletedActions.append(completed)
            hasCallbacks = true
        }
        return self
    }

    func runInitCompleted(resolver: any Resolver, instance: Any) throws {
        let actions = lock.withLock { initCompletedActions }
        guard let service = instance as? Service else { return }
        for action in actions {
            try action(resolver, service)
        }
    }

    func storedInstance(inGraph graph: GraphIdentifier) -> Any? {
        lock.withLock { storageLocked().instance(inGraph: graph) }
    }

    func store(_ instance: Any?, inGraph graph: GraphIdentifier) {
        lock.withLock { storageLocked().setInstance(instance, inGraph: graph) }
    }

    func graphCompleted() {
        lock.withLock { madeStorage?.graphResolutionCompleted() }
    }

    func discardInstance() {
        lock.withLock { storageLocked().instance = nil }
    }

    func describeWithKey(_ serviceKey: ServiceKey) -> String {
        let (scopeText, callbacks) = lock.withLock { ("\(scope)", initCompletedActions.count) }
        var text = "Service: \(serviceType)"
        if let name = serviceKey.name { text += ", Name: \"\(name)\"" }
        if let option = serviceKey.option { text += ", \(option)" }
        text += ", Factory: \(serviceKey.argumentsType) -> \(serviceKey.serviceType), ObjectScope: \(scopeText)"
        if callbacks > 0 { text += ", InitCompleted: Specified \(callbacks) closures" }
        return text
    }
}
