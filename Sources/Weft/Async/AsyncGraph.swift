import WeftAtomics

#if !canImport(Darwin)
    import Synchronization
#endif

/// One step of an async resolution's path: a registration whose factory is running.
struct AsyncStep {
    let entry: _ServiceEntryBase
    let key: ServiceKey
    /// The build other tasks wait for, when the instance is shared (graph or container); nil for a transient one.
    let build: AsyncBuild?
    /// Whether the instance outlives the graph (`.container`, `.scoped` in its scope, custom scopes).
    let shared: Bool
}

/// What an async factory's resolver carries: the graph and the steps that led to the factory, as a chain
/// from the innermost step outwards. Immutable; a factory's nested resolves get a context of one more step
/// (one allocation), so concurrent child tasks each have their own path.
final class AsyncContext: @unchecked Sendable {
    let graph: AsyncGraph
    /// Whether the factory this context was made for has returned: a resolver the factory kept then starts resolves
    /// of its own, as `container.async` does. Read on every nested resolve: an atomic flag where `Atomic` is
    /// available at Weft's deployment floors (not on Apple platforms, where ``AsyncBuilds/lock`` guards it), so
    /// that nested resolves take no process-wide lock to read it.
    #if canImport(Darwin)
        @exclusivity(unchecked) private var factoryReturned = false
    #else
        private let factoryReturned = Atomic<Bool>(false)
    #endif
    /// The innermost step; nil for a top-level resolve.
    let step: AsyncStep?
    /// The steps before it.
    let outer: AsyncContext?
    /// The innermost build in flight on the path (other tasks' waits are checked against the path's builds).
    let innermostBuild: AsyncBuild?
    /// One bit per registration on the path (see ``pathBit(of:)``): a registration whose bit is clear is not on
    /// the path, which every nested resolve asks (the cycle check) and which then needs no walk along the steps.
    private let pathBits: UInt64
    /// Whether a step on the path makes an instance that outlives the graph (see ``sharedBuilder``).
    private let hasSharedStep: Bool

    init(graph: AsyncGraph) {
        self.graph = graph
        step = nil
        outer = nil
        innermostBuild = nil
        pathBits = 0
        hasSharedStep = false
    }

    private init(outer: AsyncContext, step: AsyncStep) {
        graph = outer.graph
        self.step = step
        self.outer = outer
        innermostBuild = step.build ?? outer.innermostBuild
        pathBits = outer.pathBits | Self.pathBit(of: step.entry)
        hasSharedStep = outer.hasSharedStep || step.shared
    }

    /// The bit of `entry` in ``pathBits``: from its address, past the bits an allocation's alignment keeps zero.
    private static func pathBit(of entry: _ServiceEntryBase) -> UInt64 {
        let address = UInt(bitPattern: ObjectIdentifier(entry))
        return 1 &<< UInt64((address &>> 4) & 63)
    }

    /// The steps, innermost first. A loop rather than a lazy sequence: this is read on every nested resolve,
    /// and the lazy sequence's generic code is not specialised here.
    private func forEachStepInward(_ body: (AsyncStep) -> Bool) {
        var current: AsyncContext? = self
        while let context = current {
            if let step = context.step, !body(step) { return }
            current = context.outer
        }
    }

    /// The path for messages: `Garage -> Car`.
    var path: [String] {
        var path: [String] = []
        forEachStepInward {
            path.append($0.key.pathComponent)
            return true
        }
        return path.reversed()
    }

    /// The builds in flight on this path.
    var builds: [AsyncBuild] {
        var builds: [AsyncBuild] = []
        forEachStepInward {
            if let build = $0.build { builds.append(build) }
            return true
        }
        return builds
    }

    /// The innermost registration on the path whose instance outlives the graph.
    var sharedBuilder: _ServiceEntryBase? {
        guard hasSharedStep else { return nil }
        var builder: _ServiceEntryBase?
        forEachStepInward {
            if $0.shared { builder = $0.entry }
            return builder == nil
        }
        return builder
    }

    /// Whether `entry`'s factory is running on this path.
    func contains(_ entry: _ServiceEntryBase) -> Bool {
        guard pathBits & Self.pathBit(of: entry) != 0 else { return false }
        var found = false
        forEachStepInward {
            found = $0.entry === entry
            return !found
        }
        return found
    }

    func appending(_ step: AsyncStep) -> AsyncContext {
        AsyncContext(outer: self, step: step)
    }

    /// Notes that the factory this context was made for has returned (or thrown).
    func factoryDidReturn() {
        #if canImport(Darwin)
            AsyncBuilds.lock.withLock { factoryReturned = true }
        #else
            factoryReturned.store(true, ordering: .releasing)
        #endif
    }

    /// Whether resolves through this context still belong to its factory's call and graph. Either answer is right
    /// for a resolve that races the factory's return: it started before, or after.
    var isLive: Bool {
        #if canImport(Darwin)
            AsyncBuilds.lock.withLock { !factoryReturned && !graph.ended }
        #else
            !factoryReturned.load(ordering: .acquiring) && !graph.hasEnded.load(ordering: .acquiring)
        #endif
    }
}

/// The object graph of one top-level async resolve: its graph-scoped instances (made or being made) and
/// what it keeps alive until it ends. Guarded by ``AsyncBuilds/lock``, which excludes overlapping access: its
/// fields skip dynamic exclusivity checks.
final class AsyncGraph: @unchecked Sendable {
    let id: GraphIdentifier
    /// Graph-scoped instances of async factories, by registration: the build that makes (or made) each.
    @exclusivity(unchecked) var slots = AsyncGraphSlots()
    /// Registrations whose storage holds an instance for ``id``.
    @exclusivity(unchecked) var stored: [_ServiceEntryBase] = []
    /// Graph-scoped instances of async factories not yet in their registrations' storage: only a synchronous
    /// part of the graph looks there, so they go in when one starts (see ``publish()``).
    @exclusivity(unchecked) var unpublished: [(entry: _ServiceEntryBase, made: Made)] = []
    /// Instances made by synchronous factories during the graph, kept so that later resolves in the graph find
    /// them (their storage keeps graph-scoped instances weakly).
    @exclusivity(unchecked) var kept: [Any] = []
    /// Whether the top-level resolve of this graph has finished.
    @exclusivity(unchecked) var ended = false
    #if !canImport(Darwin)
        /// `ended`, readable without the lock (see ``AsyncContext/isLive``); set once, after it.
        let hasEnded = Atomic<Bool>(false)
    #endif

    /// Where a verification records the dependencies its builds reveal; nil outside verification.
    let findings: GraphRecorder.Findings?
    /// The graph's activity record: the graph is inside the engine for its whole life, across suspension points
    /// and threads, so that no registration it could have found (it refers to them by identity) is released
    /// before it ends. Kept here rather than in an object of its own: one allocation less per async resolve.
    private let activity = weft_activity_take()

    init(recording findings: GraphRecorder.Findings? = nil) {
        id = GraphIdentifier(id: ResolutionState.current.nextGraphID())
        self.findings = findings
        weft_activity_enter(activity)
    }

    deinit {
        // Ended without `end()` (a task cancelled before its graph ended): the record still leaves the engine.
        if !ended { leaveEngine() }
    }

    /// Leaves the engine and gives the activity record back; once, when the graph ends.
    private func leaveEngine() {
        weft_activity_leave(activity)
        weft_activity_give_back(activity)
    }

    /// Puts the graph-scoped instances made so far into their registrations' storage, where a synchronous
    /// part of the graph finds them.
    func publish() {
        let pending: [(entry: _ServiceEntryBase, made: Made)] = AsyncBuilds.lock.withLock {
            guard !unpublished.isEmpty else { return [] }
            defer {
                stored += unpublished.map(\.entry)
                unpublished = []
            }
            return unpublished
        }
        for (entry, made) in pending { entry.storeMade(made.value, inGraph: id) }
    }

    /// Records that `entry`'s storage holds an instance for this graph, so that its storage is told when the
    /// graph ends (at once when it has ended already), as the synchronous engine tells it.
    func noteStored(_ entry: _ServiceEntryBase) {
        let ended = AsyncBuilds.lock.withLock {
            if !self.ended { stored.append(entry) }
            return self.ended
        }
        if ended { entry.graphCompleted() }
    }

    /// Ends the graph: storages let go of its instances, and what it kept is released.
    func end() {
        let (stored, kept, wasEnded) = AsyncBuilds.lock.withLock {
            defer {
                self.stored = []
                self.kept = []
                unpublished = []
                slots.removeAll()
                ended = true
            }
            return (self.stored, self.kept, ended)
        }
        #if !canImport(Darwin)
            hasEnded.store(true, ordering: .releasing)
        #endif
        for entry in stored { entry.graphCompleted() }
        _ = kept
        if !wasEnded { leaveEngine() }
    }
}

/// A shared instance being made by an async factory, which other tasks may wait for.
final class AsyncBuild: @unchecked Sendable {
    enum Outcome {
        case made(Made)
        /// The build failed (or was cancelled): the waiter tries again, perhaps building it itself.
        case retry
        /// Waiting would never end: the build waits, directly or not, for the waiter. The path of the cycle.
        case cycle([String])
        /// The waiting task was cancelled: it stops waiting, the build goes on for the others.
        case cancelled
    }

    /// A task waiting for the build: its continuation, and a token to find it by when the task is cancelled.
    struct Waiter {
        let token: ObjectIdentifier
        let continuation: CheckedContinuation<Outcome, Never>
    }

    let key: ServiceKey
    /// Guarded by ``AsyncBuilds/lock``.
    @exclusivity(unchecked) var waiters: [Waiter] = []
    /// Builds this one waits for: builds its factory started, and builds it waits for another task to finish.
    @exclusivity(unchecked) var waitsFor: [AsyncBuild] = []
    @exclusivity(unchecked) var outcome: Outcome?

    init(key: ServiceKey) {
        self.key = key
    }
}

/// The coordination of async builds across tasks: one lock, never held while user code runs.
enum AsyncBuilds {
    static let lock = Lock()

    /// Waits for `build` to finish, unless it (through what it waits for) waits for a build on `context`'s
    /// path, which would never end.
    ///
    /// A cancelled task stops waiting at once (``AsyncBuild/Outcome/cancelled``); the build goes on.
    nonisolated(nonsending) static func wait(for build: AsyncBuild, context: AsyncContext) async -> AsyncBuild.Outcome {
        let holder = context.innermostBuild
        let token = WaitToken()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<AsyncBuild.Outcome, Never>) in
                let immediate: AsyncBuild.Outcome? = lock.withLock {
                    if let outcome = build.outcome { return outcome }
                    // Checked under the lock: a cancellation handler that ran before found nothing to resume.
                    if Task.isCancelled { return .cancelled }
                    let mine = context.builds
                    if let chain = chain(from: build, toAnyOf: mine) {
                        return .cycle(cyclePath(context: context, chain: chain))
                    }
                    build.waiters.append(AsyncBuild.Waiter(token: ObjectIdentifier(token), continuation: continuation))
                    holder?.waitsFor.append(build)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter: AsyncBuild.Waiter? = lock.withLock {
                guard let index = build.waiters.firstIndex(where: { $0.token == ObjectIdentifier(token) }) else {
                    return nil
                }
                return build.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: .cancelled)
        }
        if let holder {
            lock.withLock {
                if let index = holder.waitsFor.firstIndex(where: { $0 === build }) {
                    holder.waitsFor.remove(at: index)
                }
            }
        }
        return outcome
    }

    /// The instance a wait for a build ended with; nil when the build failed and the waiter should try again.
    /// Throws when waiting would never have ended (a cycle) or the waiting task was cancelled.
    static func made(_ outcome: AsyncBuild.Outcome, key: ServiceKey) throws -> Made? {
        switch outcome {
        case .made(let made): return made
        case .retry: return nil
        case .cycle(let path): throw ResolutionError(reason: .circularDependency, key: key, path: path)
        case .cancelled: throw CancellationError()
        }
    }

    /// Finishes `build` with `outcome` and wakes its waiters; `parent` stops waiting for it. Call with the lock
    /// held; resume the returned continuations after releasing it.
    static func finishLocked(
        _ build: AsyncBuild,
        _ outcome: AsyncBuild.Outcome,
        parent: AsyncBuild?
    ) -> [CheckedContinuation<AsyncBuild.Outcome, Never>] {
        build.outcome = outcome
        if let parent, let index = parent.waitsFor.firstIndex(where: { $0 === build }) {
            parent.waitsFor.remove(at: index)
        }
        defer { build.waiters = [] }
        return build.waiters.map(\.continuation)
    }

}

/// Identifies one waiting task (by the object's identity) so that its cancellation handler finds its continuation.
private final class WaitToken: Sendable {}
