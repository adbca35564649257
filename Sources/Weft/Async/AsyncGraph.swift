import WeftAtomics

#if !canImport(Darwin)
    import Synchronization
#endif

/// The object graph of one top-level async resolve: its graph-scoped instances (made or being made) and
/// what it keeps alive until it ends. Guarded by ``AsyncBuilds/lock``, which excludes overlapping access: its
/// fields skip dynamic exclusivity checks.
///
/// A graph that nothing refers to any more once it has ended becomes its thread's spare (see ``recycle(_:)``),
/// which the thread's next top-level resolve takes with a new identifier instead of allocating one.
final class AsyncGraph: @unchecked Sendable {
    /// New each time the graph starts: a spare taken again is a different graph to every storage.
    @exclusivity(unchecked) private(set) var id: GraphIdentifier
    /// Graph-scoped instances of async factories, by registration: the build that makes (or made) each.
    @exclusivity(unchecked) var slots = AsyncGraphSlots()
    /// Registrations whose storage holds an instance for ``id``.
    @exclusivity(unchecked) var stored: [_ServiceEntryBase] = []
    /// Whether a graph-scoped instance of an async factory was made since the last ``publish()``: its slot then
    /// says that it is not yet in its registration's storage, where only a synchronous part of the graph looks.
    @exclusivity(unchecked) var hasUnpublished = false
    /// Instances made by synchronous factories during the graph, kept so that later resolves in the graph find
    /// them (their storage keeps graph-scoped instances weakly).
    @exclusivity(unchecked) var kept: [Any] = []
    /// What the builds of graph-scoped instances made by synchronous factories during the graph used, by
    /// registration (see ``noteThreadBuildUsesLocked(of:_:)``): their builds leave the graph's slots once done.
    @exclusivity(unchecked) var threadBuildUses: [ObjectIdentifier: UseLog] = [:]
    /// Builds of earlier resolves that nothing refers to any more, emptied, which new builds take instead of
    /// allocating (see ``newBuildLocked(key:)``): a thread's spare graph makes the same builds on each resolve.
    @exclusivity(unchecked) var spareBuilds: [AsyncBuild] = []
    /// Whether the top-level resolve of this graph has finished.
    @exclusivity(unchecked) var ended = false
    /// The `initCompleted` callbacks of instances made inside the graph's factories, waiting for the top-level
    /// factory to return (see `Container+AsyncCompletions.swift`); closed once the top-level resolve has run them,
    /// so that a task that outlives its factory (and so the top-level one) leaves none behind.
    @exclusivity(unchecked) var completions = CompletionQueue()
    /// The collections the last ``end()`` took out, emptied with their storage kept, which the graph takes back
    /// when it becomes a spare (see ``recycle(_:)``): a graph reused by the thread's next resolve then allocates
    /// none of them again. Touched only by the task that ends the graph and by `recycle`, after it.
    @exclusivity(unchecked) private var emptied: Held?
    #if !(canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE)
        /// `ended`, readable without the lock (see ``AsyncContext/isLive``); set once, after it.
        let hasEnded = Atomic<Bool>(false)
    #endif

    /// ``AsyncBuilds/lock``, read from the graph: a static is read through a one-time initialisation check on
    /// every access, and the graph's builds take the lock several times per resolve.
    let lock = AsyncBuilds.lock
    /// Where a verification records the dependencies its builds reveal; nil outside verification.
    let findings: GraphRecorder.Findings?
    /// Whether ``findings`` is set: read on every nested resolve, without retaining the findings to test them.
    let isRecording: Bool
    /// The graph's activity record: the graph is inside the engine from its start to its end, across suspension
    /// points and threads, so that no registration it could have found (it refers to them by identity) is
    /// released before it ends. Kept here rather than in an object of its own: one allocation less per async
    /// resolve; taken for the object's whole life, so that a spare starts again without looking for a record.
    private let activity = weft_activity_take()

    init(recording findings: GraphRecorder.Findings? = nil) {
        id = GraphIdentifier(id: ResolutionState.current.nextGraphID())
        self.findings = findings
        isRecording = findings != nil
        weft_activity_enter(activity)
    }

    deinit {
        // Ended without `end()` (a task cancelled before its graph ended): the record still leaves the engine.
        if !ended { weft_activity_leave(activity) }
        weft_activity_give_back(activity)
        forgetThreadBuildUses()
    }

    /// Frees the logs of ``threadBuildUses`` and forgets them.
    private func forgetThreadBuildUses() {
        for log in threadBuildUses.values { log.deallocate() }
        threadBuildUses.removeAll()
    }

    /// A build of a graph-scoped instance of `key`: a spare one when the graph has one. Call with
    /// ``AsyncBuilds/lock`` held.
    func newBuildLocked(key: ServiceKey) -> AsyncBuild {
        guard let build = spareBuilds.popLast() else { return AsyncBuild(key: key) }
        // The graph's previous resolve usually made the same builds in the same order (see
        // `AsyncGraphSlots.removeAll(sparing:)`): a key that is already the build's is not copied again.
        let old = build.key
        if old.serviceType != key.serviceType || old.argumentsType != key.argumentsType || old.name != key.name
            || old.optionBox !== key.optionBox
        {
            build.key = key
        }
        return build
    }

    /// The graph's instance of `entry` asked for as `key`, a build of it to wait for, or a new build recorded in its
    /// slot for the caller to run; `publishes` says whether that build's instance goes into the registration's
    /// storage when a synchronous part of the graph starts; a new build is noted as one the innermost build of
    /// `waiting` waits for (read only then: reading it retains it). Call with ``AsyncBuilds/lock`` held.
    func claimSlotLocked(
        of entry: _ServiceEntryBase,
        key: ServiceKey,
        publishes: Bool,
        waiting: AsyncContext?
    ) -> AsyncClaim {
        if let build = slots[ObjectIdentifier(entry)] {
            if let made = build.made { return .stored(made) }
            return .wait(build)
        }
        let build = newBuildLocked(key: key)
        slots.insert(build, for: entry, publishes: publishes)
        waiting?.withInnermostBuild { $0.waitsFor.append(build) }
        return .build(build)
    }

    /// Puts the graph-scoped instances made so far into their registrations' storage, where a synchronous
    /// part of the graph finds them.
    func publish() {
        let pending: [(entry: _ServiceEntryBase, made: Made)] = lock.withLock {
            guard hasUnpublished else { return [] }
            hasUnpublished = false
            let pending = slots.takeUnpublished()
            stored += pending.map(\.entry)
            return pending
        }
        for (entry, made) in pending { entry.storeMade(made.value, inGraph: id) }
    }

    /// Records that `entry`'s storage holds an instance for this graph, so that its storage is told when the
    /// graph ends (at once when it has ended already), as the synchronous engine tells it.
    func noteStored(_ entry: _ServiceEntryBase) {
        let ended = lock.withLock {
            if !self.ended { stored.append(entry) }
            return self.ended
        }
        if ended { entry.graphCompleted() }
    }

    /// Ends the graph: storages let go of its instances, and what it kept is released.
    ///
    /// What the graph holds is taken out under the lock and released after it: releasing an instance may run its
    /// deinit, user code. A graph that made nothing shared (all transient) has nothing to take out: its empty
    /// collections stay as they are, and nothing is released.
    func end() {
        var held: Held?
        lock.lock()
        let wasEnded = ended
        ended = true
        if !(stored.isEmpty && kept.isEmpty && slots.isEmpty && completions.isEmpty) {
            // Under the lock: a build no other task refers to now is one no other task touches again, and every
            // access others made to it (under this lock) happened before. Swapped out rather than copied: the
            // graph keeps empty collections, and nothing is retained.
            slots.markSpares()
            var taken = Held()
            swap(&taken.stored, &stored)
            swap(&taken.kept, &kept)
            swap(&taken.slots, &slots)
            swap(&taken.spareBuilds, &spareBuilds)
            // Callbacks still waiting belong to a resolve that failed: they never run.
            swap(&taken.completions, &completions)
            hasUnpublished = false
            // Unretained references: freed under the lock, nothing is released. A graph with any has `kept` the
            // instances they were made for.
            if !threadBuildUses.isEmpty { forgetThreadBuildUses() }
            held = taken
        }
        lock.unlock()
        #if !(canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE)
            hasEnded.store(true, ordering: .releasing)
        #endif
        held?.completeStored()
        if !wasEnded { weft_activity_leave(activity) }
        if var held = held.take() {
            // Released outside the engine, as before this graph was recycled: an instance's deinit is user code.
            held.empty()
            emptied = held
        }
    }

    /// What an ending graph held, released once the lock is.
    private struct Held {
        var stored: [_ServiceEntryBase] = []
        var kept: [Any] = []
        var slots = AsyncGraphSlots()
        /// The graph's spare builds, with the builds its slots give up once emptied.
        var spareBuilds: [AsyncBuild] = []
        var completions = CompletionQueue()

        /// Tells the storages that held an instance for the graph that it has ended.
        func completeStored() {
            for entry in stored { entry.graphCompleted() }
        }

        /// Releases what the collections hold, keeping their storage; the builds nothing else refers to let go of
        /// their instances and become spares.
        mutating func empty() {
            // An empty list is left alone: emptying it still goes through the array's replacement of a range.
            if !stored.isEmpty { stored.removeAll(keepingCapacity: true) }
            if !kept.isEmpty { kept.removeAll(keepingCapacity: true) }
            completions.empty()
            slots.empty(sparing: &spareBuilds)
        }
    }
}

extension AsyncGraph {
    /// The graph of a new top-level resolve, inside the engine: this thread's spare when it has one. `state` is
    /// the calling thread's.
    static func start(_ state: ResolutionState) -> AsyncGraph {
        let spares = weft_thread_async_spares()!
        guard let spare = spares.pointee.graph else { return AsyncGraph() }
        spares.pointee.graph = nil
        let graph = Unmanaged<AsyncGraph>.fromOpaque(spare).takeRetainedValue()
        // Nothing else refers to a spare (see `recycle`): its fields are set without synchronisation. Its
        // collections were emptied when it ended.
        graph.id = GraphIdentifier(id: state.nextGraphID())
        graph.ended = false
        graph.completions.reopen()
        #if !(canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE)
            graph.hasEnded.store(false, ordering: .relaxed)
        #endif
        weft_activity_enter(graph.activity)
        return graph
    }

    /// Makes `graph`, which has ended, the calling thread's spare when nothing else refers to it (no context
    /// kept by a resolver or a task that still runs; a context refers to its graph through the top-level
    /// context, which owns it) and the thread has none. A verification's graph, which records, is not kept.
    /// Call last: `graph` is not used after.
    static func recycle(_ graph: inout AsyncGraph) {
        guard !graph.isRecording, isKnownUniquelyReferenced(&graph) else { return }
        let spares = weft_thread_async_spares()!
        guard spares.pointee.graph == nil else { return }
        AsyncContext.registerSpares(spares)
        if var emptied = graph.emptied.take() {
            // Nothing else refers to the graph, which has ended: its collections are empty, and nobody reads them.
            // Swapped rather than assigned: the storage moves back without a retain, and only the empty
            // collections the graph held are released.
            swap(&graph.stored, &emptied.stored)
            swap(&graph.kept, &emptied.kept)
            swap(&graph.slots, &emptied.slots)
            swap(&graph.spareBuilds, &emptied.spareBuilds)
            swap(&graph.completions, &emptied.completions)
        }
        spares.pointee.graph = Unmanaged.passRetained(graph).toOpaque()
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
            lock.withLock { holder.waitsFor.remove(build) }
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
        parent?.waitsFor.remove(build)
        // Usually none: no other task asked for the instance while it was being made.
        guard !build.waiters.isEmpty else { return [] }
        defer { build.waiters = [] }
        return build.waiters.map(\.continuation)
    }

}

/// Identifies one waiting task (by the object's identity) so that its cancellation handler finds its continuation.
private final class WaitToken: Sendable {}
