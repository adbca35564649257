/// The async resolution engine: async factories run here, with their own bookkeeping (``AsyncContext``,
/// ``AsyncGraph``, ``AsyncBuilds``); services with synchronous factories are made by the synchronous engine
/// on the current thread, inside the same object graph.
extension Container {
    /// Makes the registration for `key` within `context`'s graph: one with an async factory here, called with
    /// the runtime `arguments` (boxed, `()` for none); any other with `synchronously`, the synchronous engine's
    /// resolve of the same request. Not generic: the requests of every service and arity share this code.
    nonisolated(nonsending) func makeAsync(
        key: ServiceKey,
        context: AsyncContext,
        arguments: any Sendable,
        synchronously: @Sendable () throws -> Any
    ) async throws -> Made {
        try await makeAsync(
            found: lookUpAsync(key), key: key, context: context, arguments: arguments, synchronously: synchronously)
    }

    /// The registration for `key`, from this thread's lookup cache: no lock, no string hashing. Called inside a
    /// graph, whose activity record is inside the engine for the graph's whole life: what it finds is kept until
    /// the graph ends (see ``AsyncGraph``), so the thread does not enter the engine itself.
    @inline(__always)
    func lookUpAsync(_ key: ServiceKey) -> Lookup? {
        ResolutionState.withCurrent { state in state.lookups.findUnnamed(key, in: self) }
    }

    /// ``makeAsync(key:context:arguments:synchronously:)`` once the registration (`found`) has been looked up.
    nonisolated(nonsending) func makeAsync(
        found: Lookup?,
        key: ServiceKey,
        context: AsyncContext,
        arguments: any Sendable,
        synchronously: @Sendable () throws -> Any
    ) async throws -> Made {
        guard let found, let factory = found.entry.object.asyncFactory else {
            let shares = found.map { $0.policy == .shared || $0.policy == .perScope } ?? false
            return try await makeSynchronously(
                key: key, onMainActor: found?.entry.object.runsOnMainActor ?? false,
                shared: shares ? found?.entry.object : nil, context: context, synchronously)
        }
        let entry = found.entry.object
        try checkAsyncRequest(entry, scoped: found.policy == .perScope, key: key, context: context)
        // A graph-scoped request logs its use as it claims the graph's instance, under the lock it takes for that.
        if context.logsUses, found.policy != .perGraph { logAsyncUse(entry, context: context) }
        let recipe = AsyncRecipe(
            entry: entry, factory: factory, arguments: arguments, key: key, hasCallbacks: found.hasCallbacks)
        switch found.policy {
        case .transient:
            let step = AsyncStep(entry: entry, key: key, build: nil, shared: false)
            return try await build(recipe, step: step, context: context)
        case .perGraph:
            return try await makeInGraph(recipe, context: context)
        case .shared:
            return try await makeShared(recipe, holder: entry, context: context)
        case .perScope:
            guard let slot = scopeSlot(for: found.entry) else {
                throw outsideScope(key, path: context.path + [key.pathComponent])
            }
            return try await makeShared(recipe, holder: slot, context: context)
        }
    }

    /// A graph-scoped instance of an async factory: the graph's, or one made now (other tasks of the graph
    /// that ask meanwhile wait for it).
    nonisolated(nonsending) private func makeInGraph(_ recipe: AsyncRecipe, context: AsyncContext) async throws -> Made
    {
        let (entry, key) = (recipe.entry, recipe.key)
        let graph = context.graph
        let id = ObjectIdentifier(entry)
        return try await claimingInstance(
            key: key,
            context: context,
            claim: {
                // Published into the registration's storage when a synchronous part of the graph starts, unless the
                // callbacks' run puts it there; `claimingInstance` notes what the innermost build waits for.
                AsyncBuilds.lock.withLock {
                    if context.logsUses { context.logUseLocked(entry) }
                    return graph.claimSlotLocked(of: entry, key: key, publishes: !recipe.hasCallbacks, waiting: nil)
                }
            },
            make: { build in
                let step = AsyncStep(entry: entry, key: key, build: build, shared: false)
                let made = try await self.build(recipe, step: step, context: context)
                AsyncBuilds.lock.withLock {
                    // Made: later claims in the graph take it at once (the waiters are woken when the claim ends).
                    build.finish(with: made)
                    // Into the registration's storage only when a synchronous part of the graph may look.
                    if recipe.hasCallbacks {
                        graph.stored.append(entry)
                    } else {
                        graph.hasUnpublished = true
                    }
                }
                return (made, true)
            },
            release: { _ in AsyncBuilds.lock.withLock { graph.slots.remove(id) } },
            reusing: entry
        )
    }

    /// A shared instance of an async factory (`.container`, a scope's `.scoped`, custom scopes): the stored
    /// one, or one made now while other tasks that ask wait for it. The claim is `holder`'s (the registration's
    /// own, or the scope's slot), the one threads take (see ``InstanceHolder/claimForTask(key:graph:)``).
    nonisolated(nonsending) private func makeShared(
        _ recipe: AsyncRecipe,
        holder: any InstanceHolder,
        context: AsyncContext
    ) async throws -> Made {
        let key = recipe.key
        let graph = context.graph.id
        var readStorageFirst = false
        return try await claimingInstance(
            key: key,
            context: context,
            claim: {
                switch holder.claimForTask(key: key, graph: graph) {
                case .stored(let instance):
                    return .stored(Made(value: instance))
                case .wait(let build):
                    return .wait(build)
                case .claimed(let build, let readFirst):
                    readStorageFirst = readFirst
                    return .build(build)
                }
            },
            make: { build in
                // A custom scope's storage, read now that the claim is held: a build that ended meanwhile stored.
                if readStorageFirst, let stored = holder.storedInstance(inGraph: graph) {
                    return (Made(value: stored), holder.endTaskBuild(build))
                }
                let step = AsyncStep(entry: recipe.entry, key: key, build: build, shared: true)
                let made = try await self.build(recipe, step: step, context: context, store: graph, in: holder)
                return (made, holder.endTaskBuild(build))
            },
            release: { build in _ = holder.endTaskBuild(build) }
        )
    }

    /// An instance that one task makes while other tasks that ask wait for it.
    ///
    /// `claim` finds the instance, a build in flight to wait for, or records a new build this task then runs
    /// with `make`, which also says whether the instance was kept. The tasks waiting for it wake with a kept
    /// instance; when it was not kept, or when `make` threw and `release` undid the claim, they wake to try
    /// again. A wait that would close a cycle throws.
    nonisolated(nonsending) private func claimingInstance(
        key: ServiceKey,
        context: AsyncContext,
        claim: () -> AsyncClaim,
        make: nonisolated(nonsending) (AsyncBuild) async throws -> (made: Made, kept: Bool),
        release: (AsyncBuild) -> Void,
        reusing graphEntry: _ServiceEntryBase? = nil
    ) async throws -> Made {
        let parent = context.innermostBuild
        while true {
            let claimed = claim()
            switch claimed {
            case .stored(let made):
                if let graphEntry, context.buildsShared { recordReusedGraphUses(of: graphEntry, context: context) }
                return made
            case .wait(let build):
                let awaited = await AsyncBuilds.wait(for: build, context: context)
                guard let made = try AsyncBuilds.made(awaited, key: key) else { continue }
                if let graphEntry, context.buildsShared { recordReusedGraphUses(of: graphEntry, context: context) }
                return made
            case .build(let build):
                // Noted before this task can wait for anything in the build: tasks that would wait for a build on
                // this path follow what it waits for (see ``AsyncBuilds/wait(for:context:)``).
                if let parent { AsyncBuilds.lock.withLock { parent.waitsFor.append(build) } }
                do {
                    let (made, kept) = try await make(build)
                    let outcome: AsyncBuild.Outcome = kept ? .made(made) : .retry
                    let waiters = AsyncBuilds.lock.withLock {
                        AsyncBuilds.finishLocked(build, outcome, parent: parent)
                    }
                    for waiter in waiters { waiter.resume(returning: outcome) }
                    return made
                } catch {
                    // The claim is undone first, so that a waiter that wakes to try again can take it.
                    release(build)
                    let waiters = AsyncBuilds.lock.withLock {
                        AsyncBuilds.finishLocked(build, .retry, parent: parent)
                    }
                    for waiter in waiters { waiter.resume(returning: .retry) }
                    throw error
                }
            }
        }
    }

    /// Calls the async factory of `recipe`, stores the instance for `store`'s graph when given, in `holder` (and for
    /// the graph of a graph-scoped one with callbacks, in the registration), and runs the registration's
    /// `initCompleted` callbacks.
    nonisolated(nonsending) private func build(
        _ recipe: AsyncRecipe,
        step: AsyncStep,
        context: AsyncContext,
        store: GraphIdentifier? = nil,
        in holder: (any InstanceHolder)? = nil
    ) async throws -> Made {
        let (entry, key) = (recipe.entry, recipe.key)
        let target: any InstanceHolder = holder ?? entry
        // A registration's storage is told when the graph ends; a scope's slot has none to tell.
        let noted = !(target is ScopeSlot)
        var inner = context.appending(step)
        defer { AsyncContext.recycle(&inner) }
        // A shared instance's queue of callbacks is closed however the build ends (run when it succeeds, dropped
        // when it fails), so that a task its factory started that outlives it runs its instances' callbacks at once.
        defer { if step.shared, let build = step.build { Self.dropQueued(on: build) } }
        let made: Made
        do {
            defer { inner.factoryDidReturn() }
            let resolver = AsyncResolver(within: .passUnretained(self), context: inner)
            guard let result = try await recipe.factory.make(resolver, recipe.arguments) else {
                throw ResolutionError(reason: .typeMismatch, key: key, path: inner.path)
            }
            made = result
        } catch let error as ResolutionError {
            throw error
        } catch {
            throw ResolutionError.factoryFailed(error, key: key, path: inner.path)
        }
        // The callbacks of what a shared instance's factory made wait for it on its build: they run before its own.
        let queued = step.shared ? step.build.map(Self.takeQueued(on:)) ?? [] : []
        guard recipe.hasCallbacks || !queued.isEmpty else {
            if let store {
                guard target.storeMade(made.value, inGraph: store) else {
                    try await scopeEndedWhileMaking(made, key: key, context: context)
                }
                if noted { context.graph.noteStored(entry) }
            }
            return made
        }
        // Stored before the callbacks run, so that a cycle they close finds the instance; a shared one is marked
        // incomplete meanwhile, so that no other graph takes it before its callbacks have all run.
        let graph = store ?? (step.build != nil ? context.graph.id : nil)
        if store != nil, let build = step.build { target.beginTaskCompletion(build) }
        if let graph, !target.storeMade(made.value, inGraph: graph) {
            try await scopeEndedWhileMaking(made, key: key, context: context)
        }
        // A graph-scoped instance is noted by `makeInGraph`; a shared one here, once stored.
        if store != nil, noted { context.graph.noteStored(entry) }
        if context.hasNoStep {
            // The top-level request: the callbacks that waited for its factory run first, as they were queued.
            try runQueuedCompletions(root: context)
        } else if defersCompletion(of: step, in: context) {
            let completion = PendingCompletion(
                entry: entry, key: key, instance: made.value, resolver: self, origin: .path(inner.path), claim: nil,
                reachable: false, storedIn: graph)
            if deferCompletions([completion], in: context) { return made }
        }
        do {
            if let build = step.build, !queued.isEmpty { try runQueued(queued, on: build, context: inner) }
            if recipe.hasCallbacks {
                try runSegment(inner, inFactory: false) { _ in
                    try entry.runInitCompleted(resolver: self, instance: made.value)
                }
            }
        } catch {
            if let graph { target.store(nil, inGraph: graph) }
            if let error = error as? ResolutionError { throw error }
            throw ResolutionError(
                reason: .initCompletedFailed,
                key: key,
                path: inner.path,
                underlyingError: error
            )
        }
        return made
    }

    /// Tears down an instance whose scope ended while it was being made, then throws `.scopeEnded`.
    nonisolated(nonsending) private func scopeEndedWhileMaking(_ made: Made, key: ServiceKey, context: AsyncContext)
        async throws -> Never
    {
        if let failure = await Container.tearDown(made.value, name: TeardownName(key.pathComponent)) {
            Container.log(.teardownFailed(TeardownError(failures: [failure])))
        }
        throw ResolutionError(reason: .scopeEnded, key: key, path: context.path + [key.pathComponent])
    }

    /// Makes `key`, whose factory is synchronous (or which has no registration, for the error), with the
    /// synchronous engine on this thread, in `context`'s graph; on the main actor when its factory needs it.
    /// While another thread builds the `shared` registration, the task suspends instead of blocking.
    nonisolated(nonsending) private func makeSynchronously(
        key: ServiceKey,
        onMainActor: Bool,
        shared: _ServiceEntryBase?,
        context: AsyncContext,
        _ synchronously: @Sendable () throws -> Any
    ) async throws -> Made {
        let awaited = shared.map(ObjectIdentifier.init)
        @Sendable func make() throws -> Made {
            try self.segment(context, awaiting: awaited, suspends: true) { _ in Made(value: try synchronously()) }
        }
        return try await suspendingWhileBuilt {
            if onMainActor, !isOnMainActor() {
                return try await MainActor.run { try make() }
            }
            return try make()
        }
    }

    /// What every async request for `entry` checks before its factory runs: a verification notes the request, a
    /// cycle on `context`'s path and a shared instance that would keep a scope's instance (`scoped`: `entry` is a
    /// `.scoped` registration) throw. Inlined, with what rules each check out read here: the usual request (no
    /// registration on the path that shares `entry`'s bit, which also rules out a verification's recording, and
    /// not a scope's instance) then makes no call.
    @inline(__always)
    func checkAsyncRequest(_ entry: _ServiceEntryBase, scoped: Bool, key: ServiceKey, context: AsyncContext) throws {
        if ResolutionPath(context).asyncStepsMayContain(entry) { try checkOnPath(entry, key: key, context: context) }
        if scoped { try checkCaptive(key: key, context: context) }
        if context.buildsShared { recordAsyncDependency(entry, context: context) }
    }

    /// Records that the shared instance being made on `context`'s path uses `entry`, as the synchronous engine's
    /// `recordDependency` does: replacing or resetting `entry` then discards it, and an `entry` replaced since the
    /// request found it makes the build stale at once.
    @inline(never)
    func recordAsyncDependency(_ entry: _ServiceEntryBase, context: AsyncContext) {
        guard let builder = context.sharedBuilder, builder !== entry else { return }
        if !entry.addDependent(builder) { builder.discardInstanceAndDependents() }
    }

    /// The checks of ``checkAsyncRequest(_:scoped:key:context:)`` for a request whose registration may be on the
    /// path (or whose resolution records): a verification notes it, and a cycle throws.
    func checkOnPath(_ entry: _ServiceEntryBase, key: ServiceKey, context: AsyncContext) throws {
        if context.isRecording, let asker = context.stepRegistration {
            context.graph.findings?.resolving(entry, from: asker)
        }
        try checkAsyncCycle(entry, key: key, path: ResolutionPath(context))
    }

    /// Throws when a shared instance being made on `context`'s path, other than a scope's, would keep a scope's
    /// instance of `key`.
    func checkCaptive(key: ServiceKey, context: AsyncContext) throws {
        guard let holder = context.sharedStep, holder.entry.lookupConfiguration.policy != .perScope else { return }
        throw ResolutionError(
            reason: .captiveDependency, key: key, path: context.path + [key.pathComponent], captor: holder.step)
    }
}

/// What a task asking for a graph-scoped or shared instance of an async factory found.
enum AsyncClaim {
    case stored(Made)
    case wait(AsyncBuild)
    case build(AsyncBuild)
}

/// What the engine needs of an async registration to build it: the factory, and the request's runtime
/// arguments, boxed.
private struct AsyncRecipe {
    let entry: _ServiceEntryBase
    let factory: AsyncFactory
    let arguments: any Sendable
    let key: ServiceKey
    let hasCallbacks: Bool
}
