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
    /// Makes `key` (no runtime arguments) as `Service`, for a resolver of `container`: within `context`'s graph
    /// when it is given (the context of a factory still running), else as a top-level resolve. What a top-level
    /// request needs no async graph for is made without one: a built singleton is read as a synchronous resolve
    /// reads it, and a service whose factory is synchronous is made by the synchronous engine (whose factories
    /// cannot reach an async one).
    ///
    /// Inlined into the resolver's `require` and `resolve`: a call of its own would be one more async frame per
    /// resolve. The container and the context are borrowed, not retained: the resolver's caller holds the
    /// resolver, which holds the context and (directly, or through its resolution) the container, for the call;
    /// and the top-level resolve's own graph and context are held by this frame.
    @inline(__always)
    nonisolated(nonsending) static func makeAsync<Service>(
        _: Service.Type,
        key: ServiceKey,
        context: Unmanaged<AsyncContext>?,
        in container: Unmanaged<Container>
    ) async throws -> Service {
        guard let context else {
            let route = container._withUnsafeGuaranteedRef { $0.topLevelRoute(key, singleton: true) }
            return try await makeAtTopLevel(Service.self, key: key, route: route, in: container)
        }
        let found = container._withUnsafeGuaranteedRef { $0.lookUpAsync(key) }
        return try await makeAsync(Service.self, found: found, key: key, context: context, in: container)
    }

    /// A top-level resolve of `key` (no runtime arguments) along `route`, decided by
    /// ``topLevelRoute(_:singleton:)`` just before, without suspending since: the route may leave the thread
    /// inside the engine. Inlined, as ``makeAsync(_:key:context:in:)``.
    @inline(__always)
    nonisolated(nonsending) static func makeAtTopLevel<Service>(
        _: Service.Type,
        key: ServiceKey,
        route decided: TopLevelRoute,
        in container: Unmanaged<Container>
    ) async throws -> Service {
        var route = decided
        if case .singleton(let entry, let entered) = route {
            do {
                return try container._withUnsafeGuaranteedRef {
                    try $0.builtSingleton(entry, entered: entered, as: Service.self)
                }
            } catch is NotBuiltYet {}
            route = container._withUnsafeGuaranteedRef { $0.topLevelRoute(key, singleton: false) }
        }
        guard case .graph(let started, let registration) = route else {
            if case .synchronous(let found, let entered) = route {
                // The first try in this frame, with the registration the route found.
                do {
                    return try container._withUnsafeGuaranteedRef {
                        try $0.makeOnThisThread(found, key: key, entered: entered, as: Service.self)
                    }
                } catch let busy as BuildInProgress {
                    try await BuildCoordinator.suspendWhileBuilt(busy.target)
                }
            }
            return try await makeOnThisThread(Service.self, key: key, in: container)
        }
        if let registration, registration.exact, !registration.hasCallbacks, registration.policy == .transient,
            let factory = typedFactory(of: registration, as: Service.self)
        {
            return try await callAtTopLevel(factory, root: started, entry: registration.entry, key: key, in: container)
        }
        var resolution = TopLevelResolution(started)
        defer { resolution.end() }
        // The request's own step runs the `initCompleted` callbacks its graph queued (see `completeDeferred(root:)`),
        // where the instance is not held by this generic async frame.
        return try await makeAsync(
            Service.self, found: registration, key: key, context: resolution.unretainedRoot, in: container)
    }

    /// ``makeAsync(_:key:context:in:)`` once the registration (`found`) has been looked up: the request for a
    /// typed factory (the argument-less async registration for exactly `Service`, without callbacks), transient
    /// or graph-scoped, here; any other in a call of its own.
    @inline(__always)
    nonisolated(nonsending) static func makeAsync<Service>(
        _: Service.Type,
        found: Lookup?,
        key: ServiceKey,
        context: Unmanaged<AsyncContext>,
        in container: Unmanaged<Container>
    ) async throws -> Service {
        if let found, found.exact, !found.hasCallbacks, let factory = typedFactory(of: found, as: Service.self) {
            if found.policy == .transient {
                let inner = try container._withUnsafeGuaranteedRef { container in
                    try context._withUnsafeGuaranteedRef {
                        try container.transientStep(of: found.entry, key: key, context: $0)
                    }
                }
                return try await call(factory, inner: inner, key: key, in: container)
            }
            if found.policy == .perGraph {
                return try await makeInGraph(found.entry, factory: factory, key: key, context: context, in: container)
            }
        }
        return try await container.takeUnretainedValue().makeAsync(
            Service.self, found: found, key: key, context: context.takeUnretainedValue())
    }

    /// The typed async factory of `found`, an exact registration for `Service`; nil when its factory is
    /// synchronous. Read without retaining it: a registration's factory is set before it is published and never
    /// changed, and the graph's activity record keeps the registration alive until the graph ends.
    @inline(__always)
    private static func typedFactory<Service>(of found: Lookup, as _: Service.Type)
        -> Unmanaged<TypedAsyncFactory<Service>>?
    {
        guard let factory = found.entry._withUnsafeGuaranteedRef({ $0.asyncFactory.map(Unmanaged.passUnretained) })
        else { return nil }
        return Unmanaged<TypedAsyncFactory<Service>>.fromOpaque(factory.toOpaque())
    }

    /// The checks of a request for `entry`, a transient registration with a typed async factory, within
    /// `context`, and the context of its factory's step, retained for the call that takes it (once): unmanaged,
    /// so that the call then holds the context's only reference.
    @inline(__always)
    func transientStep(of entry: EntryReference, key: ServiceKey, context: AsyncContext) throws
        -> Unmanaged<AsyncContext>
    {
        try entry._withUnsafeGuaranteedRef { entry in
            try checkAsyncRequest(entry, scoped: false, key: key, context: context)
            if context.logsUses { logAsyncUse(entry, context: context) }
            return .passRetained(context.appending(entry: entry, key: key, build: nil, shared: false))
        }
    }

    /// ``makeAsync(_:key:context:in:)`` once the registration (`found`) has been looked up: every request but
    /// those for a typed transient or graph-scoped factory. Not inlined: what its routes keep across their
    /// suspensions would enlarge the frame of every resolve, and each frame is taken from the task's allocator.
    @inline(never)
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
            if found.exactShared, !context.isRecording, context.sharedBuilder == nil {
                // A built singleton, read as a synchronous resolve reads it: typed, under the registration's lock.
                // Not while a verification records, nor on the path of a shared build, which note their uses. A
                // graph-scoped build in flight on the path logs it (see ``AsyncContext/logsUses``).
                if context.logsUses { entry._withUnsafeGuaranteedRef { logAsyncUse($0, context: context) } }
                do {
                    return try ResolutionState.withCurrent { state in
                        try entry._withUnsafeGuaranteedRef { try completeSingleton($0, as: Service.self, state: state) }
                    }
                } catch is NotBuiltYet {}
            }
            let synchronous = entry._withUnsafeGuaranteedRef { $0.asyncFactory == nil && !$0.runsOnMainActor }
            if synchronous {
                return try await makeSynchronously(found, as: Service.self, key: key, context: context)
            }
        }
        let name = key.name
        // Read before the request: a step's context is not read once its request may have ended.
        let topLevel = context.hasNoStep
        let made = try await makeAsync(found: found, key: key, context: context, arguments: ()) {
            try self.makeWithoutArguments(Service.self, name: name)
        }
        // The top-level request: the callbacks that waited for its factory run before the instance is handed out.
        if topLevel { try completeDeferred(root: context) }
        return try cast(made, key: key, context: context)
    }

    /// How a top-level async resolve of `key` goes, decided with one lookup inside the engine: an exact
    /// `.container`-like registration may have a built singleton to read (when `singleton`), a registration whose
    /// factory is synchronous (and not bound to the main actor) goes to the synchronous engine, and any other
    /// starts a graph. The graph enters the engine before this thread leaves it, so that the registration found
    /// stays alive for the graph without a second lookup.
    ///
    /// A `.singleton` or `.synchronous` route leaves the thread inside the engine, so that the registration found
    /// stays alive for what the caller calls next, without suspending, and which leaves it:
    /// ``builtSingleton(_:entered:as:)``, or the first try of ``makeOnThisThread(_:key:entered:as:)``.
    func topLevelRoute(_ key: ServiceKey, singleton: Bool) -> TopLevelRoute {
        ResolutionState.withCurrent { state in
            let entered = state.enterEngine()
            guard let found = state.lookups.find(key, in: self) else {
                defer { state.leaveEngine(entered) }
                return .graph(.passRetained(AsyncContext.root(nil, container: self)), nil)
            }
            if singleton, found.exactShared { return .singleton(found.entry, entered: entered) }
            let synchronous = found.entry._withUnsafeGuaranteedRef { $0.asyncFactory == nil && !$0.runsOnMainActor }
            if synchronous { return .synchronous(found, entered: entered) }
            defer { state.leaveEngine(entered) }
            // A transient request may need no graph at all (see `AsyncContext+Resolution.swift`); any other needs
            // one at once, started here rather than by its first request.
            let graph = found.policy == .transient ? nil : Unmanaged.passRetained(AsyncGraph.start(state))
            return .graph(.passRetained(AsyncContext.root(taking: graph, container: self)), found)
        }
    }

    /// The complete instance of the singleton of `entry`, the exact `.container`-like registration a `.singleton`
    /// route found, read typed under the registration's lock, from outside any graph; throws ``NotBuiltYet`` when
    /// there is none (not built, or being built). Leaves the engine as the route's `entered` says.
    private func builtSingleton<Service>(_ entry: EntryReference, entered: Bool, as _: Service.Type) throws
        -> Service
    {
        try ResolutionState.withCurrent { state in
            defer { state.leaveEngine(entered) }
            return try entry._withUnsafeGuaranteedRef { try completeSingleton($0, as: Service.self, state: state) }
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
    nonisolated(nonsending) private static func makeOnThisThread<Service>(
        _: Service.Type,
        key: ServiceKey,
        in container: Unmanaged<Container>
    ) async throws -> Service {
        // The loop of ``suspendingWhileBuilt(_:)`` written out: on this path, the most common async resolve, its
        // closure costs more than the loop.
        while true {
            do {
                return try container._withUnsafeGuaranteedRef { try $0.makeOnThisThread(Service.self, key: key) }
            } catch let busy as BuildInProgress {
                try await BuildCoordinator.suspendWhileBuilt(busy.target)
            }
        }
    }

    /// One try of ``makeOnThisThread(_:key:in:)``: throws ``BuildInProgress`` while another thread builds the
    /// instance.
    private func makeOnThisThread<Service>(_: Service.Type, key: ServiceKey) throws -> Service {
        try ResolutionState.withCurrent { state in
            try state.insideEngine {
                guard let found = state.lookups.find(key, in: self) else {
                    // Removed meanwhile: the synchronous engine explains what is missing.
                    return try make(Service.self, name: key.name, option: nil)
                }
                return try makeOnThisThread(found, key: key, state: state)
            }
        }
    }

    /// One try of ``makeOnThisThread(_:key:in:)`` with `found`, the registration a `.synchronous` route found
    /// (see ``topLevelRoute(_:singleton:)``), made while the thread is still inside the engine; leaves it as the
    /// route's `entered` says.
    private func makeOnThisThread<Service>(_ found: Lookup, key: ServiceKey, entered: Bool, as _: Service.Type)
        throws -> Service
    {
        try ResolutionState.withCurrent { state in
            defer { state.leaveEngine(entered) }
            return try makeOnThisThread(found, key: key, state: state)
        }
    }

    /// Makes `found` for a top-level resolve, with the thread inside the engine: throws ``BuildInProgress`` while
    /// another thread builds the (shared) instance.
    @inline(__always)
    private func makeOnThisThread<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws
        -> Service
    {
        let awaited =
            found.policy == .shared || found.policy == .perScope
            ? ObjectIdentifier(found.entry.takeUnretainedValue()) : nil
        return try state.suspendingForBuild(of: awaited) { try make(found, key: key, state: state) as Service }
    }

    /// Makes the registration `found`, whose factory is synchronous, with the synchronous engine on this thread in
    /// `context`'s graph, as `Service`. While another thread builds it (a shared instance, or the graph's), the task
    /// suspends instead of blocking. Inside the engine already: `segment` entered it.
    nonisolated(nonsending) private func makeSynchronously<Service>(
        _ found: Lookup, as _: Service.Type, key: ServiceKey, context: AsyncContext
    ) async throws -> Service {
        let awaited =
            found.policy == .shared || found.policy == .perScope ? ObjectIdentifier(found.entry.object) : nil
        return try await suspendingWhileBuilt {
            try segment(context, awaiting: awaited, suspends: true) { try make(found, key: key, state: $0) as Service }
        }
    }

    /// Calls `factory`, a typed async factory, with a resolver for `inner` (the context of its step, whose
    /// reference the caller hands over) in `container` (which the resolution keeps alive), and recycles `inner`
    /// once it has returned: what ``makeAsync(found:key:context:arguments:synchronously:)`` does for it, but for
    /// the cast. Inlined: a call of its own would be one more async frame per resolve.
    @inline(__always)
    nonisolated(nonsending) static func call<Service>(
        _ factory: Unmanaged<TypedAsyncFactory<Service>>,
        inner: Unmanaged<AsyncContext>,
        key: ServiceKey,
        in container: Unmanaged<Container>
    ) async throws -> Service {
        // The resolver takes over the caller's reference to `inner`, and is lent to the factory from this frame:
        // the context is then referred to once, unless the factory keeps the resolver.
        var resolver = AsyncResolver(within: container, context: inner.takeRetainedValue())
        defer { AsyncResolver.factoryDidReturn(resolver.context.take()) }
        do {
            return try await factory._withUnsafeGuaranteedRef { $0.typed }(resolver)
        } catch {
            throw Self.factoryError(error, key: key, context: resolver.context.unsafelyUnwrapped)
        }
    }

    /// Calls `factory`, the typed async factory of `entry` (a transient registration without callbacks, the
    /// request of a top-level resolve), with a resolver for `root`, the resolve's top-level context (whose reference
    /// the caller hands over), made the step's context too; then ends the resolution and recycles the context.
    /// The request's checks have nothing to find: the path is empty (no cycle, no shared instance being made, no
    /// verification recording). A call of its own: it holds the instance, of a type unknown here, across the
    /// `initCompleted` callbacks its graph queued, which would cost every other route of
    /// ``makeAtTopLevel(_:key:route:in:)`` a task allocation.
    @inline(never)
    nonisolated(nonsending) static func callAtTopLevel<Service>(
        _ factory: Unmanaged<TypedAsyncFactory<Service>>,
        root: Unmanaged<AsyncContext>,
        entry: EntryReference,
        key: ServiceKey,
        in container: Unmanaged<Container>
    ) async throws -> Service {
        root._withUnsafeGuaranteedRef { root in
            entry._withUnsafeGuaranteedRef { root.beginTopLevelStep(entry: $0, key: key) }
        }
        var resolver = AsyncResolver(within: container, context: root.takeRetainedValue())
        defer {
            resolver.context.unsafelyUnwrapped.factoryDidReturn()
            resolver.context.unsafelyUnwrapped.endResolution()
            AsyncContext.recycle(&resolver.context)
        }
        let instance: Service
        do {
            instance = try await factory._withUnsafeGuaranteedRef { $0.typed }(resolver)
        } catch {
            throw Self.factoryError(error, key: key, context: resolver.context.unsafelyUnwrapped)
        }
        try container._withUnsafeGuaranteedRef { try $0.completeDeferred(root: resolver.context.unsafelyUnwrapped) }
        return instance
    }

    /// What an async factory's `error` becomes: a ``ResolutionError`` as it is, any other wrapped as
    /// ``ResolutionError/Reason/factoryFailed`` with the path of `context`, the factory's.
    @inline(never)
    static func factoryError(_ error: any Error, key: ServiceKey, context: AsyncContext) -> any Error {
        if error is ResolutionError { return error }
        return ResolutionError.factoryFailed(error, key: key, path: context.path)
    }
}

/// Thrown inside the engine when a singleton read finds no complete instance: the caller then builds or waits.
private struct NotBuiltYet: Error {}

/// How a top-level async resolve goes (see ``Container/topLevelRoute(_:singleton:)``).
@usableFromInline enum TopLevelRoute {
    /// An exact `.container`-like registration, `entry`: its instance may be built. The thread is still inside
    /// the engine, and `entered` says whether the route entered it (see ``ResolutionState/enterEngine()``).
    case singleton(EntryReference, entered: Bool)
    /// A registration, `found`, whose factory is synchronous and may run on this thread. The thread is still
    /// inside the engine, as for ``singleton(_:entered:)``.
    case synchronous(Lookup, entered: Bool)
    /// The top-level context of a resolution started for the request (with its graph, unless the request is
    /// transient), retained for the resolve that takes it (once), and the registration found (nil: none, for the
    /// error). Unmanaged: the resolve then holds the context's only reference, without a copy.
    case graph(Unmanaged<AsyncContext>, Lookup?)
}

/// The top-level context of a top-level async resolve, held for the resolve's frame.
struct TopLevelResolution: ~Copyable {
    private var root: AsyncContext?

    /// Takes over `started`, the route's reference to the top-level context started for the resolve.
    init(_ started: Unmanaged<AsyncContext>) {
        root = started.takeRetainedValue()
    }

    /// The top-level context, borrowed: this resolution holds it until ``end()``.
    var unretainedRoot: Unmanaged<AsyncContext> { .passUnretained(root.unsafelyUnwrapped) }

    /// Ends the resolution (and its graph, if it made one), and recycles its context (and graph) when nothing else
    /// refers to them.
    mutating func end() {
        root.unsafelyUnwrapped.endResolution()
        AsyncContext.recycle(&root)
    }
}
