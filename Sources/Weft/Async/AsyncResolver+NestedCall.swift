/// The parts of `require` that decide, without suspending, how a request is made: by calling a typed factory from
/// the requesting code's own frame (``AsyncResolver/require(_:name:)`` is inlined there), or by the engine.
///
/// - A factory's nested request (``AsyncResolver/NestedCall``): what the engine would check before calling such a
///   factory (the cycle, a captive scoped service, verification's recording) is checked here, and reports the same
///   errors.
/// - A top-level request (``AsyncResolver/TopLevelCall``), `container.async`'s: a typed transient factory is called
///   from the caller's frame, so the request costs no async frame of the engine's beside the factory's own; every
///   other request goes to the engine with the route decided here.
extension AsyncResolver {
    /// How a nested request goes, for a registration of exactly the type asked for, made with an `async` closure
    /// and without `initCompleted` callbacks: when ``factory`` is set, the caller calls it, with a resolver for
    /// ``inner`` when that is set (a transient registration), else through the graph's build of ``found``'s
    /// registration (graph-scoped, see ``Container/makeInGraph(_:factory:key:context:in:)``). Otherwise the engine
    /// makes it, with the registration looked up here (see ``make(_:key:after:)``). Every field is trivial, and
    /// there are few enough of them to be handed back in registers: the value costs nothing to copy or destroy.
    @usableFromInline struct NestedCall {
        /// The typed factory to call (a `TypedAsyncFactory` of the service asked for), unretained: the graph's
        /// activity record keeps its registration alive. Nil when the engine makes the request.
        @usableFromInline let factory: UnsafeMutableRawPointer?
        /// The context of a transient factory's step, retained for the resolver that takes it (once); nil for a
        /// graph-scoped factory.
        @usableFromInline let inner: Unmanaged<AsyncContext>?
        /// The registration found; nil when there is none, or when the factory this resolver was handed to had
        /// returned (the engine then asks again, see ``make(_:key:after:)``).
        @usableFromInline let found: Lookup?

        /// A request the engine makes: `found` is what the lookup found.
        init(found: Lookup?) {
            factory = nil
            inner = nil
            self.found = found
        }

        /// A request for `found`, whose typed factory is `factory`: transient with the step's context `inner`,
        /// or graph-scoped (`inner` nil).
        init(found: Lookup, factory: Unmanaged<AsyncFactory>, inner: Unmanaged<AsyncContext>?) {
            self.factory = factory.toOpaque()
            self.inner = inner
            self.found = found
        }
    }

    /// How the request for `key` (no runtime arguments), from a resolver of `container` handed to the factory of
    /// `context`'s step, goes (see ``NestedCall``). For a typed transient factory, the request's checks run here,
    /// and may throw, and its factory's context is made. Not generic: the caller, inlined into the requesting
    /// factory, casts the factory back to its service type. Static, with the resolver's two parts the call needs:
    /// a method would be specialised without the third, behind an entry point that forwards to it.
    @usableFromInline static func nestedCall(
        _ key: ServiceKey,
        context: AsyncContext,
        in container: Unmanaged<Container>
    ) throws -> NestedCall {
        // A resolver its factory kept resolves on its own once the factory has returned.
        guard context.isLive else { return NestedCall(found: nil) }
        // The thread's state first, then the container: the other way round, the optimiser calls the lookup as a
        // closure of its own rather than inlining it.
        let found = ResolutionState.withCurrent { state in
            container._withUnsafeGuaranteedRef { state.lookups.findUnnamed(key, in: $0) }
        }
        // An exact registration's async factory is the typed one of the service asked for (see
        // ``TypedAsyncFactory``); read without retaining it, as ``Container/typedFactory(of:as:)`` reads it.
        guard let found, found.exact, !found.hasCallbacks,
            found.policy == .transient || found.policy == .perGraph,
            let factory = found.entry._withUnsafeGuaranteedRef({ $0.asyncFactory.map(Unmanaged.passUnretained) })
        else { return NestedCall(found: found) }
        guard found.policy == .transient else { return NestedCall(found: found, factory: factory, inner: nil) }
        let inner = try container._withUnsafeGuaranteedRef { container in
            try container.transientStep(of: found.entry, key: key, context: context)
        }
        return NestedCall(found: found, factory: factory, inner: inner)
    }

    /// Makes the request for `key` (no runtime arguments) by the engine: with the registration `call` looked up, or,
    /// when the factory this resolver was handed to has returned, as a resolve of its own. That is asked again
    /// here rather than recorded in `call`: once the factory has returned it stays so, and a request that raced
    /// the return may go either way.
    @usableFromInline
    nonisolated(nonsending) func make<Service>(
        _: Service.Type,
        key: ServiceKey,
        after call: NestedCall
    ) async throws -> Service {
        guard context.unsafelyUnwrapped.isLive else { return try await make(Service.self, name: key.name) }
        return try await Container.makeAsync(
            Service.self, found: call.found, key: key, context: .passUnretained(context.unsafelyUnwrapped),
            in: unretainedContainer)
    }

    /// Notes that the factory a resolver was handed to has returned (or thrown), and recycles its `context`, taken
    /// out of the resolver, when the factory kept no reference to it. Static, taking the context rather than the
    /// resolver: the caller then knows that its resolver holds nothing left to release.
    @usableFromInline static func factoryDidReturn(_ context: consuming AsyncContext?) {
        AsyncContext.stepDidReturn(&context)
    }

    /// What the `error` of the factory this resolver was handed to becomes (see
    /// ``Container/factoryError(_:key:context:)``).
    @usableFromInline func factoryError(_ error: any Error) -> any Error {
        let context = context.unsafelyUnwrapped
        return Container.factoryError(error, key: context.stepKey, context: context)
    }

    /// How a top-level request goes: ``typed(factory:root:)`` for a typed transient async factory (the
    /// argument-less registration made with an `async` closure for exactly the type asked for, without
    /// `initCompleted` callbacks), which the caller calls with a resolver for `root`; otherwise the engine makes the
    /// request along the route, at once: a route may leave the thread inside the engine (see
    /// ``Container/topLevelRoute(_:singleton:)``). An enum rather than a structure of both: small enough to be
    /// handed back in registers.
    @usableFromInline enum TopLevelCall {
        /// `factory` is the typed factory to call (a `TypedAsyncFactory` of the service asked for), unretained: the
        /// resolution's activity record keeps its registration alive. `root` is the resolution's top-level
        /// context, made the step's context (see ``AsyncContext/beginTopLevelStep(entry:key:)``) and retained for
        /// the resolver that takes it (once).
        case typed(factory: UnsafeMutableRawPointer, root: Unmanaged<AsyncContext>)
        /// The engine makes the request along the route.
        case engine(TopLevelRoute)
    }

    /// How the top-level request for `key` (no runtime arguments), from `container`'s resolver, goes (see
    /// ``TopLevelCall``). For a typed transient factory, the request has nothing to check (its path is empty, and
    /// nothing records), and its resolution's top-level context is made. Not generic: the caller casts the factory
    /// back to its service type. Static, as ``nestedCall(_:context:in:)``.
    @usableFromInline static func topLevelCall(_ key: ServiceKey, in container: Unmanaged<Container>) -> TopLevelCall {
        let route = container._withUnsafeGuaranteedRef { $0.topLevelRoute(key, singleton: true) }
        guard case .graph(let root, let found?) = route, found.exact, !found.hasCallbacks,
            found.policy == .transient,
            let factory = found.entry._withUnsafeGuaranteedRef({ $0.asyncFactory.map(Unmanaged.passUnretained) })
        else { return .engine(route) }
        root._withUnsafeGuaranteedRef { root in
            found.entry._withUnsafeGuaranteedRef { root.beginTopLevelStep(entry: $0, key: key) }
        }
        return .typed(factory: factory.toOpaque(), root: root)
    }

    /// Makes the top-level request for `key` (no runtime arguments) by the engine, along the `route`
    /// ``topLevelCall(_:in:)`` decided; called at once, without suspending first.
    @usableFromInline
    nonisolated(nonsending) func make<Service>(
        _: Service.Type,
        key: ServiceKey,
        along route: TopLevelRoute
    ) async throws -> Service {
        try await Container.makeAtTopLevel(Service.self, key: key, route: route, in: unretainedContainer)
    }

    /// Runs the `initCompleted` callbacks that waited for the top-level factory a resolver was handed to (see
    /// ``topLevelCall(_:in:)``), which has returned, then ends the resolution as ``endResolution(_:)`` does with
    /// `context`, taken out of the resolver, also when a callback throws.
    @usableFromInline static func completeAndEndResolution(
        _ context: consuming AsyncContext?,
        in container: Unmanaged<Container>
    ) throws {
        defer { endResolution(context.take()) }
        // Borrowed: this function holds the context.
        try Unmanaged.passUnretained(context.unsafelyUnwrapped)._withUnsafeGuaranteedRef { root in
            try container._withUnsafeGuaranteedRef { try $0.completeDeferred(root: root) }
        }
    }

    /// Notes that the top-level factory a resolver was handed to (see ``topLevelCall(_:in:)``) has returned (or
    /// thrown), ends the resolution, and recycles its top-level `context`, taken out of the resolver, when the
    /// factory kept no reference to it (static, as ``factoryDidReturn(_:)``).
    @usableFromInline static func endResolution(_ context: consuming AsyncContext?) {
        // Borrowed for the two calls: this function holds the context.
        Unmanaged.passUnretained(context.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
            $0.factoryDidReturn()
            $0.endResolution()
        }
        AsyncContext.recycle(&context)
    }
}
