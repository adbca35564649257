/// Where a shared instance is kept and claimed: a registration, for its own instance (`.container`, `.weak`,
/// custom scopes, a graph's), or a scope's ``ScopeSlot``, for that scope's instance of a `.scoped` registration.
/// The engine claims, waits for, stores and releases through this, whichever it is; what it builds (the factory,
/// the callbacks, the frame on the path) is the registration's either way.
protocol InstanceHolder: BuildWaitTarget, Sendable {
    /// The registration whose instance is held.
    var registration: _ServiceEntryBase { get }
    /// Looks for a usable instance, or claims the right to build one (see ``BuildClaim``).
    func claim(by state: ResolutionState, graph: GraphIdentifier, policy: SharingPolicy, coordinated: Bool)
        -> BuildClaim
    /// Gives up the claim `state` holds, if it holds it.
    func releaseClaim(by state: ResolutionState)
    /// The resolution building an instance right now, and the graph it builds in.
    var builder: (state: ResolutionState, graph: GraphIdentifier)? { get }
    /// The instance the build holding the claim has stored for `graph`, read without calling user code.
    func instanceOfBuilder(inGraph graph: GraphIdentifier) -> Any?
    /// The stored instance for `graph`.
    func storedInstance(inGraph graph: GraphIdentifier) -> Any?
    /// Stores `instance` for `graph` (nil discards); false when it belongs to a scope that has ended meanwhile,
    /// which does not keep it.
    @discardableResult
    func store(_ instance: Any?, inGraph graph: GraphIdentifier) -> Bool
    /// Stores an instance an async factory made (see ``_ServiceEntryBase/storeMade(_:inGraph:)``).
    @discardableResult
    func storeMade(_ instance: Any, inGraph graph: GraphIdentifier) -> Bool
    /// Looks for a usable instance, or claims the right to build one, for a task (see ``TaskClaim``).
    func claimForTask(key: ServiceKey, graph: GraphIdentifier) -> TaskClaim
    /// Notes that the task holding the claim with `build` is about to store its instance and run its callbacks.
    func beginTaskCompletion(_ build: AsyncBuild)
    /// Gives up the claim the task holds with `build`; returns whether the instance it made was kept.
    func endTaskBuild(_ build: AsyncBuild) -> Bool
}

extension _ServiceEntryBase: InstanceHolder {
    var registration: _ServiceEntryBase { self }
}
