/// The async engine's typed entry: every async resolve without runtime arguments comes here, and hands its
/// caller a `Service`.
///
/// - A top-level request that needs no async graph is answered without one: a built singleton (or a scope's
///   instance) is read from its typed slot as a synchronous resolve reads it, and a service whose factory is
///   synchronous is made by the synchronous engine on the calling thread.
/// - Inside a graph, a transient registration made with an `async` closure for exactly the requested type, without
///   `initCompleted` callbacks, is built by calling its typed factory, so the instance reaches the caller without
///   being boxed as `Any` and cast back (a cast to a protocol type is a conformance lookup in the runtime); a
///   synchronous factory runs in the graph's segment through the synchronous engine's typed path.
/// - Every other request goes through ``makeAsync(found:key:context:arguments:synchronously:)``, and its instance
///   is cast to `Service` at the end.
///
/// Each route runs the same checks (cycle, captive scoped service, verification's recording) and reports the same
/// errors as the general path.
extension Container {
    /// Makes `key` (no runtime arguments) within `context`'s graph, as `Service`. Inlined into the resolver's
    /// `require` and `resolve`: a call of its own would be one more async frame per nested resolve.
    @inline(__always)
    nonisolated(nonsending) func makeAsync<Service>(
        _: Service.Type,
        key: ServiceKey,
        context: AsyncContext
    ) async throws -> Service {
        try await makeAsync(Service.self, found: lookUpAsync(key), key: key, context: context)
    }

    /// ``makeAsync(_:key:context:)`` once the registration (`found`) has been looked up.
    @inline(__always)
    nonisolated(nonsending) private func makeAsync<Service>(
        _: Service.Type,
        found: Lookup?,
        key: ServiceKey,
        context: AsyncContext
    ) async throws -> Service {
        if let found {
            // The registration is read through `found`, not retained: the graph's activity record keeps it alive
            // until the graph ends.
            let entry = found.entry
            if found.exact, found.policy == .shared, !context.graph.isRecording, context.sharedBuilder == nil {
                // A built singleton, read as a synchronous resolve reads it: typed, under the registration's lock.
                // Not while a verification records, nor on the path of a shared build, which note their uses.
                do {
                    return try ResolutionState.withCurrent { state in
                        try entry._withUnsafeGuaranteedRef { try completeSingleton($0, as: Service.self, state: state) }
                    }
                } catch is NotBuiltYet {}
            }
            // The factory is read without retaining it: a registration's factory is set before it is published and
            // never changed, and the graph keeps the registration alive.
            let (asyncFactory, onMainActor) = entry._withUnsafeGuaranteedRef {
                ($0.asyncFactory.map(Unmanaged.passUnretained), $0.runsOnMainActor)
            }
            if let factory = asyncFactory {
                if found.exact, !found.hasCallbacks {
                    // Exact: the registration is the argument-less async one for `Service`, whose factory is typed.
                    let typed = Unmanaged<TypedAsyncFactory<Service>>.fromOpaque(factory.toOpaque())
                    if found.policy == .transient {
                        try entry._withUnsafeGuaranteedRef {
                            try checkAsyncRequest($0, scoped: false, key: key, context: context)
                        }
                        return try await call(typed, of: entry, key: key, context: context, build: nil)
                    }
                    if found.policy == .perGraph {
                        return try await makeInGraph(entry, factory: typed, key: key, context: context)
                    }
                }
            } else if !onMainActor {
                return try await makeSynchronously(found, as: Service.self, key: key, context: context)
            }
        }
        let name = key.name
        let made = try await makeAsync(found: found, key: key, context: context, arguments: ()) {
            try self.makeWithoutArguments(Service.self, name: name)
        }
        return try cast(made, key: key, context: context)
    }

    /// Makes `key` (no runtime arguments) for a top-level async resolve, as `Service`. What needs no async graph
    /// is made without one: a built singleton is read as a synchronous resolve reads it, and a service whose
    /// factory is synchronous is made by the synchronous engine (whose factories cannot reach an async one).
    /// Inlined into the resolver's `require` and `resolve`: a call of its own would be one more async frame per
    /// top-level resolve.
    @inline(__always)
    nonisolated(nonsending) func makeAsync<Service>(_: Service.Type, key: ServiceKey) async throws -> Service {
        var route = topLevelRoute(key, singleton: true)
        if case .singleton = route {
            do {
                return try builtSingleton(key, as: Service.self)
            } catch is NotBuiltYet {}
            route = topLevelRoute(key, singleton: false)
        }
        switch route {
        case .singleton, .synchronous:
            return try await makeOnThisThread(Service.self, key: key)
        case .graph(let started, let found):
            // The route's reference, taken over: the resolve's is then the only one (see `AsyncGraph.recycle`).
            var graph = started.takeRetainedValue()
            var context: AsyncContext? = AsyncContext.root(graph)
            defer {
                graph.end()
                AsyncContext.recycle(&context)
                AsyncGraph.recycle(&graph)
            }
            return try await makeAsync(Service.self, found: found, key: key, context: context.unsafelyUnwrapped)
        }
    }

    /// How a top-level async resolve of `key` goes, decided with one lookup inside the engine: an exact
    /// `.container`-like registration may have a built singleton to read (when `singleton`), a registration whose
    /// factory is synchronous (and not bound to the main actor) goes to the synchronous engine, and any other
    /// starts a graph. The graph enters the engine before this thread leaves it, so that the registration found
    /// stays alive for the graph without a second lookup.
    private func topLevelRoute(_ key: ServiceKey, singleton: Bool) -> TopLevelRoute {
        ResolutionState.withCurrent { state in
            state.insideEngine {
                guard let found = state.lookups.find(key, in: self) else {
                    return .graph(.passRetained(AsyncGraph.start(state)), nil)
                }
                return found.entry._withUnsafeGuaranteedRef { entry in
                    if singleton, found.exact, found.policy == .shared { return .singleton }
                    if entry.asyncFactory == nil, !entry.runsOnMainActor { return .synchronous }
                    return .graph(.passRetained(AsyncGraph.start(state)), found)
                }
            }
        }
    }

    /// The complete instance of the singleton registered for exactly `key`, read typed under the registration's
    /// lock, from outside any graph; throws ``NotBuiltYet`` when there is none (not built, being built, or not an
    /// exact `.container`-like registration).
    private func builtSingleton<Service>(_ key: ServiceKey, as _: Service.Type) throws -> Service {
        try ResolutionState.withCurrent { state in
            try state.insideEngine {
                guard let found = state.lookups.find(key, in: self), found.exact, found.policy == .shared else {
                    throw NotBuiltYet()
                }
                return try found.entry._withUnsafeGuaranteedRef {
                    try completeSingleton($0, as: Service.self, state: state)
                }
            }
        }
    }

    /// The complete instance kept in the typed slot of `entry`, an exact registration for `Service` that shares
    /// its instance; throws ``NotBuiltYet`` when there is none that `state` may use.
    private func completeSingleton<Service>(_ entry: _ServiceEntryBase, as _: Service.Type, state: ResolutionState)
        throws -> Service
    {
        try unsafeDowncast(entry, to: ServiceEntry<Service>.self).completeSharedInstance(
            for: state, found: {}, orElse: { throw NotBuiltYet() })
    }

    /// A top-level resolve of `key`, whose factory is synchronous, by the synchronous engine on this thread, in a
    /// graph of its own. While another thread builds the (shared) instance asked for, the task suspends instead
    /// of blocking.
    nonisolated(nonsending) private func makeOnThisThread<Service>(_: Service.Type, key: ServiceKey) async throws
        -> Service
    {
        // The loop of ``suspendingWhileBuilt(_:)`` written out: on this path, the most common async resolve, its
        // closure costs more than the loop.
        while true {
            do {
                return try ResolutionState.withCurrent { state in
                    try state.insideEngine {
                        guard let found = state.lookups.find(key, in: self) else {
                            // Removed meanwhile: the synchronous engine explains what is missing.
                            return try make(Service.self, name: key.name, option: nil)
                        }
                        let awaited =
                            found.policy == .shared || found.policy == .perScope
                            ? ObjectIdentifier(found.entry.takeUnretainedValue()) : nil
                        return try state.suspendingForBuild(of: awaited) {
                            try make(found, key: key, state: state) as Service
                        }
                    }
                }
            } catch let busy as BuildInProgress {
                try await BuildCoordinator.suspendWhileBuilt(busy.holder)
            }
        }
    }

    /// Makes the registration `found`, whose factory is synchronous, with the synchronous engine on this thread in
    /// `context`'s graph, as `Service`. While another thread builds it (a shared instance), the task suspends
    /// instead of blocking.
    nonisolated(nonsending) private func makeSynchronously<Service>(
        _ found: Lookup,
        as _: Service.Type,
        key: ServiceKey,
        context: AsyncContext
    ) async throws -> Service {
        let awaited =
            found.policy == .shared || found.policy == .perScope ? ObjectIdentifier(found.entry.object) : nil
        return try await suspendingWhileBuilt {
            // Inside the engine already: `segment` entered it.
            try segment(context, awaiting: awaited) { state in try make(found, key: key, state: state) as Service }
        }
    }

    /// Calls `factory`, the typed async factory of `entry`, on a path one step longer than `context`'s (the step
    /// of `build` when the instance is the graph's): what ``makeAsync(found:key:context:arguments:synchronously:)``
    /// does for it, but for the cast. Inlined: a call of its own would be one more async frame per resolve.
    @inline(__always)
    nonisolated(nonsending) private func call<Service>(
        _ factory: Unmanaged<TypedAsyncFactory<Service>>,
        of entry: EntryReference,
        key: ServiceKey,
        context: AsyncContext,
        build: AsyncBuild?
    ) async throws -> Service {
        var inner: AsyncContext? = entry._withUnsafeGuaranteedRef {
            context.appending(entry: $0, key: key, build: build, shared: false)
        }
        defer {
            inner.unsafelyUnwrapped.factoryDidReturn()
            AsyncContext.recycle(&inner)
        }
        do {
            return try await factory._withUnsafeGuaranteedRef { $0.typed }(
                AsyncResolver(container: self, context: inner))
        } catch let error as ResolutionError {
            throw error
        } catch {
            throw ResolutionError(
                reason: .factoryFailed, key: key, path: inner.unsafelyUnwrapped.path, underlyingError: error)
        }
    }

    /// The graph's instance of `entry`, a graph-scoped registration without callbacks whose typed async factory is
    /// `factory`: the one made earlier in the graph (cast, as the general path's), or one made now, handed back
    /// typed, while the graph's other tasks that ask wait for it. What `makeInGraph` and `claimingInstance` do
    /// for any registration, in one loop.
    nonisolated(nonsending) private func makeInGraph<Service>(
        _ entry: EntryReference,
        factory: Unmanaged<TypedAsyncFactory<Service>>,
        key: ServiceKey,
        context: AsyncContext
    ) async throws -> Service {
        // Generic code in an async function keeps each value of type `Service` in memory taken from the task's
        // allocator, on every call: the bookkeeping is in the non-generic helpers below, and the instance the
        // factory makes goes straight into its box (`Made`, of a fixed size, in the frame), so that none is.
        try entry._withUnsafeGuaranteedRef { try checkAsyncRequest($0, scoped: false, key: key, context: context) }
        while true {
            switch claimGraphSlot(of: entry, key: key, context: context) {
            case .stored(let made):
                return Self.instance(made, as: Service.self)
            case .wait(let build):
                guard let made = try await Self.waitForGraphBuild(build, key: key, context: context) else { continue }
                return Self.instance(made, as: Service.self)
            case .build(let build):
                do {
                    let made = Made(value: try await call(factory, of: entry, key: key, context: context, build: build))
                    finishGraphBuild(build, made: made, context: context)
                    return Self.instance(made, as: Service.self)
                } catch {
                    abandonGraphBuild(build, of: entry, context: context)
                    throw error
                }
            }
        }
    }

    /// The graph's instance of `entry`, a build of it to wait for, or a new build this task runs (recorded in the
    /// graph's slots, and as a build the innermost build in flight waits for).
    @inline(never)
    private func claimGraphSlot(of entry: EntryReference, key: ServiceKey, context: AsyncContext) -> AsyncClaim {
        context.withGraph { graph in
            graph.lock.withLock {
                entry._withUnsafeGuaranteedRef {
                    graph.claimSlotLocked(of: $0, key: key, publishes: true, waiting: context)
                }
            }
        }
    }

    /// Waits for `build`, another task's build of a graph-scoped instance: what it made, or nil to try again.
    @inline(never)
    nonisolated(nonsending) private static func waitForGraphBuild(
        _ build: AsyncBuild,
        key: ServiceKey,
        context: AsyncContext
    ) async throws -> Made? {
        try AsyncBuilds.made(await AsyncBuilds.wait(for: build, context: context), key: key)
    }

    /// Ends `build` with the instance it made: later claims in the graph take it, and the tasks waiting wake with it.
    @inline(never)
    private func finishGraphBuild(_ build: AsyncBuild, made: consuming Made, context: AsyncContext) {
        let graph = context.unretainedGraph
        graph._withUnsafeGuaranteedRef {
            $0.lock.lock()
            // Into the registration's storage only when a synchronous part of the graph may look.
            $0.hasUnpublished = true
        }
        guard build.waiters.isEmpty else {
            return Self.finishLockedWaking(build, made: made, parent: context.innermostBuild, graph: graph)
        }
        // Usually no other task asked meanwhile: the instance moves into the build, without a copy to release.
        context.withInnermostBuild { $0.waitsFor.remove(build) }
        build.outcome = .made(made)
        graph._withUnsafeGuaranteedRef { $0.lock.unlock() }
    }

    /// ``finishGraphBuild(_:made:context:)`` when other tasks wait for `build`: called with `graph`'s lock held,
    /// which it releases before waking them with the instance.
    @inline(never)
    private static func finishLockedWaking(
        _ build: AsyncBuild,
        made: Made,
        parent: AsyncBuild?,
        graph: Unmanaged<AsyncGraph>
    ) {
        let outcome = AsyncBuild.Outcome.made(made)
        let waiters = AsyncBuilds.finishLocked(build, outcome, parent: parent)
        graph._withUnsafeGuaranteedRef { $0.lock.unlock() }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// Ends `build`, whose factory threw: its slot is freed, and the tasks waiting wake to try again.
    @inline(never)
    private func abandonGraphBuild(_ build: AsyncBuild, of entry: EntryReference, context: AsyncContext) {
        let waiters = context.withGraph { graph in
            graph.lock.withLock {
                graph.slots.remove(entry._withUnsafeGuaranteedRef { ObjectIdentifier($0) })
                return AsyncBuilds.finishLocked(build, .retry, parent: context.innermostBuild)
            }
        }
        for waiter in waiters { waiter.resume(returning: .retry) }
    }

    /// The instance of a graph slot of an exact registration for `Service`, which its typed factory made (called
    /// directly, or through the erased factory that wraps it): a `Service`, cast once, without the check
    /// ``cast(_:key:context:)`` makes first for registrations whose instances may be of another type.
    private static func instance<Service>(_ made: Made, as _: Service.Type) -> Service {
        // The typed factory's instance went into `Any` as a `Service`, so the box holds a value whose type is exactly
        // `Service` (for a protocol type, the existential itself, not the type inside it), read back without asking
        // the runtime to cast it: a cast to a protocol type looks up the conformance.
        func read<Boxed>(_ boxed: Boxed) -> Service {
            if Boxed.self == Service.self { return unsafeBitCast(boxed, to: Service.self) }
            return boxed as! Service
        }
        return _openExistential(made.value, do: read)
    }

    /// What `key`'s registration made, as `Service`; a ``ResolutionError/Reason/typeMismatch`` when it is not one.
    /// The error's path is `context`'s while its factory runs.
    func cast<Service>(_ made: Made, key: ServiceKey, context: AsyncContext?) throws -> Service {
        // Checked, then cast: `as?` would ask the runtime for `Optional<Service>`'s metadata on every call, since
        // this code is not specialised for `Service`; two casts cost less than that lookup.
        if made.value is Service { return made.value as! Service }
        throw ResolutionError(
            reason: .typeMismatch,
            key: key,
            path: (context.map { $0.isLive ? $0.path : [] } ?? []) + [key.pathComponent],
            madeType: String(describing: type(of: made.value))
        )
    }
}

/// Thrown inside the engine when a singleton read finds no complete instance: the caller then builds or waits.
private struct NotBuiltYet: Error {}

/// How a top-level async resolve goes (see ``Container/topLevelRoute(_:singleton:)``).
private enum TopLevelRoute {
    /// An exact `.container`-like registration: its instance may be built.
    case singleton
    /// A registration whose factory is synchronous and may run on this thread.
    case synchronous
    /// A graph started for the request, retained for the resolve that takes it (once), and the registration found
    /// (nil: none, for the error). Unmanaged: the resolve then holds the graph's only reference, without a copy.
    case graph(Unmanaged<AsyncGraph>, Lookup?)
}
