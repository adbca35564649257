/// The claim to build one registration's shared instance (or one scope's instance of it): who builds it now, and
/// whether what they build may be kept. One per registration (and per scope's slot), for both kinds of builder,
/// guarded by the registration's lock (the scope's); a small state machine:
///
/// - **free**: nobody builds. A thread or a task that finds no instance takes the claim.
/// - **held by a thread** (``holder`` is that thread's resolution): the thread's factory runs, then its callbacks.
///   Other threads wait on the build condition (``BuildCoordinator``) and tasks suspend on it, never blocking
///   their thread (``BuildCoordinator/suspendWhileBuilt(_:)``).
/// - **held by a task** (``holder`` is ``ResolutionState/asyncBuilder``, ``taskBuild`` the build it runs): the
///   async factory runs, then, once the instance is stored, its callbacks (``taskCompleting``). Other tasks suspend
///   on ``taskBuild`` with a continuation; threads never wait for it (they cannot call an async factory): they
///   take the instance once it is stored and complete, or fail.
///
/// In either held state, a discard of the instance, or of what it is made with, marks the build ``stale``: its
/// instance goes to the resolve that made it, but is neither kept nor handed to the waiters, who build anew.
/// Ending the claim makes it free again.
///
/// A graph-scoped instance is one per graph: while a thread holds the claim for one graph, a thread of another
/// graph (one that can be named from outside, so that several threads resolve in it) claims its own graph's build
/// among the ``graphClaims``, and the threads of that graph wait for it, not for the first graph's builder.
@usableFromInline struct BuildClaimState {
    /// The resolution holding the claim and the graph it builds in.
    ///
    /// The resolution is not retained: a claim is held by a thread's resolution (or by the process-wide
    /// ``ResolutionState/asyncBuilder``) and given up before that resolve returns, so the thread, which keeps its
    /// resolution until it ends, is alive while it holds a claim. Read under the registration's lock, a holder
    /// that is found is alive.
    @usableFromInline struct Holder {
        @usableFromInline unowned(unsafe) let state: ResolutionState
        @usableFromInline let graph: GraphIdentifier
    }

    /// Who holds the claim; nil while free.
    @usableFromInline private(set) var claimant: Holder?

    /// The resolution holding the claim and the graph it builds in (the resolution retained); nil while free.
    var holder: (state: ResolutionState, graph: GraphIdentifier)? {
        claimant.map { ($0.state, $0.graph) }
    }
    /// The build tasks wait for while a task holds the claim.
    private(set) var taskBuild: AsyncBuild?
    /// Whether the task holding the claim stores its instance and runs its `initCompleted` callbacks.
    private(set) var taskCompleting = false
    /// Whether the instance being built was made with something discarded meanwhile.
    private(set) var stale = false
    /// The builds of a graph-scoped instance in other graphs than the claimant's, at most one per graph, each with
    /// whether it was made stale; empty but while graphs build the instance at the same time.
    private var graphClaims: [(holder: Holder, stale: Bool)] = []

    /// Whether anyone holds the claim.
    var isHeld: Bool { claimant != nil }

    /// Whether nobody holds the claim: one word tested, for a read of a built instance that leaves every held
    /// claim (this resolution's own included) to the path that takes claims.
    @inlinable var isFree: Bool { claimant == nil }

    /// Whether `state` may take the stored instance without asking further: nobody builds, or `state` does.
    @inlinable @inline(__always)
    func admits(_ state: ResolutionState) -> Bool {
        guard let claimant else { return true }
        return claimant.state === state
    }

    /// Whether a task holds the claim.
    var isHeldByTask: Bool { taskBuild != nil }

    /// Whether the holder builds in `graph`.
    func builds(in graph: GraphIdentifier) -> Bool { claimant?.graph == graph }

    /// While a task holds the claim: whether a synchronous resolve in `graph` may take the instance the task has
    /// stored, if any: its own graph's, or one with no callbacks left to run.
    func lendsTaskInstance(to graph: GraphIdentifier) -> Bool { builds(in: graph) || !taskCompleting }

    /// While a task holds the claim: what a synchronous resolve that may not take (or does not find) the task's
    /// instance is told: that it is being completed, or, while the async factory runs, nothing (the synchronous
    /// engine then finds the factory async).
    var refusalWhileTaskHolds: BuildClaim { taskCompleting ? .completingAsync : .free }

    /// Takes the free claim for the thread whose resolution is `state`, building in `graph`.
    mutating func take(by state: ResolutionState, graph: GraphIdentifier) {
        claimant = Holder(state: state, graph: graph)
    }

    /// Takes the claim for a task running `build` in `graph`. A thread's claim found here is one about to fail
    /// (the factory is async, which the synchronous engine cannot call): the task takes it over, and the thread's
    /// release, which checks who holds the claim, leaves it alone.
    mutating func take(by build: AsyncBuild, graph: GraphIdentifier) {
        let claims = graphClaims
        self = BuildClaimState()
        graphClaims = claims
        claimant = Holder(state: ResolutionState.asyncBuilder, graph: graph)
        taskBuild = build
    }

    /// Notes that the task running `build` is about to store its instance and run its callbacks.
    mutating func beginTaskCompletion(_ build: AsyncBuild) {
        if taskBuild === build { taskCompleting = true }
    }

    /// Marks the build in progress, if any, as made with something discarded.
    mutating func markStale() {
        if claimant != nil { stale = true }
        for index in graphClaims.indices { graphClaims[index].stale = true }
    }

    /// Whether builds in other graphs than the claimant's hold claims of their own (see ``graphClaims``).
    var hasGraphClaims: Bool { !graphClaims.isEmpty }

    /// The resolution building the instance in `graph`: the claimant's when it builds there, or the one that
    /// holds the claim of that graph.
    func builder(in graph: GraphIdentifier) -> ResolutionState? {
        if let claimant, claimant.graph == graph { return claimant.state }
        return graphClaims.first { $0.holder.graph == graph }?.holder.state
    }

    /// Takes the claim of `graph`'s build for the thread whose resolution is `state`: the claim itself when it is
    /// free and no other graph builds, one of ``graphClaims`` otherwise. Nobody may build in `graph` yet.
    mutating func take(inGraph graph: GraphIdentifier, by state: ResolutionState) {
        if claimant == nil, graphClaims.isEmpty { return take(by: state, graph: graph) }
        graphClaims.append((Holder(state: state, graph: graph), false))
    }

    /// Whether the build in `graph`, if one of ``graphClaims``, was made stale; otherwise whether the claimant's was.
    func isStale(in graph: GraphIdentifier) -> Bool {
        if !graphClaims.isEmpty, let claim = graphClaims.first(where: { $0.holder.graph == graph }) {
            return claim.stale
        }
        return stale
    }

    /// Ends the claim `state` holds among ``graphClaims``, if any; returns whether it held one.
    mutating func endGraphClaim(by state: ResolutionState) -> Bool {
        guard let index = graphClaims.firstIndex(where: { $0.holder.state === state }) else { return false }
        graphClaims.remove(at: index)
        return true
    }

    /// Makes the claim free; returns whether the build that held it may keep its instance (it was not stale).
    mutating func end() -> Bool {
        let kept = !stale
        claimant = nil
        // Most claims are a thread's: no task's build to let go of.
        if taskBuild != nil { taskBuild = nil }
        taskCompleting = false
        stale = false
        return kept
    }
}
