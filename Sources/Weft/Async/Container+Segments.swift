/// Synchronous parts of async graphs ("segments"): a synchronous factory an async resolve needs runs in the
/// synchronous engine on the task's thread, inside the async graph's identifier, so that graph-scoped instances
/// are shared across both engines.
///
/// An async graph's tasks run its synchronous factories on their own threads, possibly at the same time (child
/// tasks of one factory): two threads could each find no instance of a graph-scoped registration in the graph and
/// each make one. So a synchronous part of an async graph claims such a build in the graph's slots, as a task claims
/// the build of an async factory's graph-scoped instance: one thread makes the instance, into its registration's
/// storage for the graph; a thread that needs it meanwhile waits through the ``BuildCoordinator`` (which finds a
/// cycle of waits rather than waiting it out), and a task that asked for it directly suspends instead.
///
/// A resolve that is not part of an async graph keeps its graph to one thread and claims nothing: its graph-scoped
/// instances are its own records.
extension Container {
    /// Runs `body` in a synchronous segment of `context`'s graph (see ``runSegment(_:inFactory:_:)``), where the
    /// shared registration `awaited`, when another thread builds it, makes the engine throw ``BuildInProgress``
    /// instead of blocking; so does the graph-scoped instance `body` asks for first when `suspends` (the caller
    /// catches the error and suspends).
    func segment<T>(
        _ context: AsyncContext,
        awaiting awaited: ObjectIdentifier?,
        suspends: Bool = false,
        _ body: (ResolutionState) throws -> T
    ) throws -> T {
        try runSegment(context) { state in
            guard suspends else { return try state.suspendingForBuild(of: awaited) { try body(state) } }
            state.suspendsForGraphBuilds = true
            defer { state.suspendsForGraphBuilds = false }
            return try state.suspendingForBuild(of: awaited) { try body(state) }
        }
    }

    /// Runs `attempt` again each time it found the shared instance it asked for being built by another thread,
    /// after suspending until that build ends (never blocking the task's thread). Inlined: a call of its own
    /// would cost an async frame on every resolve that reaches the synchronous engine.
    @inline(__always)
    nonisolated(nonsending) func suspendingWhileBuilt<T>(
        _ attempt: nonisolated(nonsending) () async throws -> T
    ) async throws -> T {
        while true {
            do {
                return try await attempt()
            } catch let busy as BuildInProgress {
                try await BuildCoordinator.suspendWhileBuilt(busy.target)
            }
        }
    }

    /// Runs `body` in the synchronous engine, inside `context`'s graph and with its shared builder noted (for
    /// invalidation and captive scoped services); keeps what the graph made meanwhile until the graph ends. The
    /// thread's path goes on from `context`'s steps (see ``ResolutionPath``): a cycle that closes through them is
    /// found, and every error and callback origin names the whole path.
    /// In a verification's build, what `body` resolves is recorded as resolved by the innermost step's factory
    /// (or, unless `inFactory`, its `initCompleted` callbacks).
    func runSegment<T>(
        _ context: AsyncContext,
        inFactory: Bool = true,
        _ body: (ResolutionState) throws -> T
    ) throws -> T {
        try runSegment(context, origin: context.stepRegistration, inFactory: inFactory, body)
    }

    /// ``runSegment(_:inFactory:_:)`` recording what `body` resolves as resolved by `origin` (nil: by nobody, a
    /// top-level request).
    func runSegment<T>(
        _ context: AsyncContext,
        origin: _ServiceEntryBase?,
        inFactory: Bool,
        _ body: (ResolutionState) throws -> T
    ) throws -> T {
        context.graph.publish()
        // Run for a factory of the resolution (not the top-level request's): the callbacks of what it makes wait.
        let defers = inFactory && !context.hasNoStep
        guard let findings = context.graph.findings else {
            return try segment(context, inFactory: inFactory, defers: defers, body)
        }
        let origin = origin.map { GraphRecorder.Origin(entry: $0, inFactory: inFactory) }
        return try GraphRecorder(findings: findings, origin: origin).record {
            try segment(context, inFactory: inFactory, defers: defers, body)
        }
    }

    private func segment<T>(
        _ context: AsyncContext,
        inFactory: Bool,
        defers: Bool,
        _ body: (ResolutionState) throws -> T
    ) throws -> T {
        try resolving(graph: context.graph.id) { state in
            let (outerGraph, outerDeferral) = (state.segmentGraph, state.segmentDeferral)
            let fields = state.fields
            let (outerSteps, outerInFactory) = (fields.pointee.outerSteps, fields.pointee.outerStepInFactory)
            state.segmentGraph = .passUnretained(context.graph)
            state.segmentDeferral = defers ? .passUnretained(context) : nil
            (fields.pointee.outerSteps, fields.pointee.outerStepInFactory) = (.passUnretained(context), inFactory)
            defer {
                (state.segmentGraph, state.segmentDeferral) = (outerGraph, outerDeferral)
                (fields.pointee.outerSteps, fields.pointee.outerStepInFactory) = (outerSteps, outerInFactory)
            }
            let builder = context.sharedBuilder
            if let builder { state.fields.pointee.sharedBuilds.append(.passUnretained(builder)) }
            // Run for a graph-scoped instance's async factory: what the synchronous engine uses goes into its log.
            let logs = context.logsUses
            let firstUse = state.fields.pointee.made.usesCount
            if logs { state.fields.pointee.openGraphBuild() }
            let result = try body(state)
            if builder != nil { state.fields.pointee.sharedBuilds.removeLast() }
            if logs {
                state.fields.pointee.closeGraphBuild()
                logSegmentUses(from: firstUse, state: state, context: context)
            }
            let made = instancesMade(inGraph: context.graph.id, state: state)
            if !made.isEmpty {
                // The graph read before the lock: reading it may take the resolution's own lock.
                let graph = context.graph
                AsyncBuilds.lock.withLock { graph.kept += made }
            }
            return result
        }
    }
}

extension Container {
    /// Hands the `initCompleted` callbacks queued from `first` on in this thread's resolve, once its factories have
    /// all returned in a segment run for a factory of the async resolution of `context`, on to that resolution's
    /// queue (see `Container+AsyncCompletions.swift`), as an async factory's instance queues its own: they run once
    /// the async factory that waits for them has returned, so that a callback can close a cycle through it. False
    /// when they are to run now: that queue is closed, or a shared instance among them holds its claim until its
    /// callbacks have run (threads wait for it; its callbacks, and those queued with it, run as the synchronous
    /// engine runs them).
    @inline(never)
    func deferSegmentCompletions(_ state: ResolutionState, from first: Int, to context: Unmanaged<AsyncContext>)
        -> Bool
    {
        let queued = state.pending[first...]
        guard !queued.contains(where: { $0.claim != nil }) else { return false }
        let graph = state.fields.pointee.graph
        let path = ResolutionPath(state)
        let deferred = context._withUnsafeGuaranteedRef { context in
            let completions = queued.map { pending in
                PendingCompletion(
                    entry: pending.entry,
                    key: pending.key,
                    instance: pending.instance,
                    resolver: pending.resolver,
                    // A callback's error names the path its instance was made along, from the async request on.
                    origin: .path(path.components(madeAlong: pending)),
                    claim: nil,
                    reachable: false,
                    // A graph-scoped instance is in its registration's storage, which a failed callback clears.
                    storedIn: pending.entry.lookupConfiguration.policy == .perGraph ? graph : nil
                )
            }
            return deferCompletions(completions, in: context)
        }
        if deferred {
            // No longer this thread's to complete (see `ResolutionState.Fields.completing`).
            state.fields.pointee.completing -= queued.reduce(0) { $0 + ($1.reachable ? 1 : 0) }
            state.pending.removeSubrange(first...)
        }
        return deferred
    }

    /// What a synchronous part of an async graph found when it asked for the graph's instance of a registration.
    enum SegmentClaim {
        /// The graph's instance, which another thread made.
        case instance(Any)
        /// This thread makes the instance and ends `build` once it is kept.
        case build(AsyncBuild)
        /// This thread makes the instance without a claim: it is making it already (the engine then reports the
        /// cycle), or the registration's factory is async (the synchronous engine reports that).
        case unclaimed
    }

    /// The graph's instance of the graph-scoped registration `found`, stored or made now, while the thread runs a
    /// synchronous part of an async graph (``ResolutionState/segmentGraph``), after the registration's storage held
    /// no instance for `graph`. Everything it needs beside the request is read here rather than by its caller,
    /// which every shared instance's build goes through: each value held there makes every recursive build's
    /// frame larger.
    @inline(never)
    func makeOnceInSegment<Value>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        graph: GraphIdentifier,
        produce: () throws -> Value
    ) throws -> Value {
        // The async graph's own, not one a `Lazy` restored inside it.
        let segment = state.segmentGraph.unsafelyUnwrapped
        let claim =
            segment._withUnsafeGuaranteedRef({ $0.id }) == graph
            ? try claimInSegment(found.entry.object, key: key, state: state, graph: graph, segment: segment)
            : .unclaimed
        if case .instance(let existing) = claim { return try convert(existing, key: key, state: state) }
        defer {
            if case .build(let build) = claim {
                // What the build used, for a shared instance that reuses the instance later in the graph.
                if state.fields.pointee.made.usesCount != 0 {
                    noteThreadBuildUses(of: found.entry, graph: graph, state: state, segment: segment)
                }
                segment._withUnsafeGuaranteedRef { $0.endThreadBuild(build, of: found.entry.object) }
            }
        }
        return try build(found, key: key, state: state, claimed: false, slot: nil, produce: produce)
    }

    /// Claims the build of `entry`'s instance in `segment`'s slots, or waits for the thread that holds it and takes
    /// the instance it made; throws ``BuildInProgress`` when async code asked for the instance directly.
    private func claimInSegment(
        _ entry: _ServiceEntryBase,
        key: ServiceKey,
        state: ResolutionState,
        graph: GraphIdentifier,
        segment: Unmanaged<AsyncGraph>
    ) throws -> SegmentClaim {
        guard entry.asyncFactory == nil else { return .unclaimed }
        while true {
            let (build, claimed) = segment._withUnsafeGuaranteedRef { segment in
                segment.lock.withLock { segment.claimThreadSlotLocked(of: entry, key: key, state: state) }
            }
            if claimed {
                // A build that ended between the caller's read of the storage and this claim stored there first.
                if let stored = entry.storedInstance(inGraph: graph) {
                    segment._withUnsafeGuaranteedRef { $0.endThreadBuild(build, of: entry) }
                    return .instance(stored)
                }
                return .build(build)
            }
            guard let owner = build.waitBuilder else {
                // Ended between the claim and now: its instance is stored, or this thread makes it.
                if let stored = entry.storedInstance(inGraph: graph) { return .instance(stored) }
                continue
            }
            if owner === state { return .unclaimed }
            // Nothing is made in this resolve yet: the task suspends and asks again once the build ended.
            if state.suspendsForGraphBuilds, state.fields.pointee.frames.isEmpty {
                throw BuildInProgress(target: build)
            }
            let offered = { entry.storedInstance(inGraph: graph) }
            if let adopted = try BuildCoordinator.waitForBuilder(of: build, key: key, state: state, offered: offered) {
                return .instance(adopted)
            }
            if let stored = entry.storedInstance(inGraph: graph) { return .instance(stored) }
        }
    }
}

extension AsyncGraph {
    /// The thread build in flight for `entry`, or a new one that `state`'s thread now holds (`claimed`). Call with
    /// ``AsyncBuilds/lock`` held.
    func claimThreadSlotLocked(of entry: _ServiceEntryBase, key: ServiceKey, state: ResolutionState)
        -> (build: AsyncBuild, claimed: Bool)
    {
        if let build = slots[ObjectIdentifier(entry)] { return (build, false) }
        let build = newBuildLocked(key: key)
        build.thread = ThreadBuilder(state: state, entry: entry, graph: id)
        // Its instance goes into the registration's storage as the synchronous engine keeps it: nothing to publish.
        slots.insert(build, for: entry, publishes: false)
        return (build, true)
    }

    /// Ends the thread build `build` of `entry`'s instance, kept or failed: its slot is freed (a later claim reads
    /// the storage), and the threads and tasks waiting for it wake to look again.
    func endThreadBuild(_ build: AsyncBuild, of entry: _ServiceEntryBase) {
        let id = ObjectIdentifier(entry)
        let ended = lock.withLock {
            // Gone when the graph ended meanwhile (a task that outlived its top-level resolve): it took the slots.
            if slots[id] === build { slots.remove(id) }
            return build.thread.take()
        }
        // Released after the lock: the registration it holds may be its last reference.
        withExtendedLifetime(ended) {}
        BuildCoordinator.condition.broadcast()
    }
}
