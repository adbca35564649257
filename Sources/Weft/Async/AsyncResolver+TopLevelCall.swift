/// The part of a top-level `require` (``Container/async``'s) that decides, without suspending, how the request is
/// made: by calling a typed transient factory from the caller's own frame (``AsyncResolver/require(_:name:)`` is
/// inlined there), or by the engine, with the route decided here. A top-level request for a typed transient
/// factory then costs no async frame of the engine's beside the factory's own.
extension AsyncResolver {
    /// How a top-level request goes. When ``root`` is set, the request is for a typed transient async factory (the
    /// argument-less registration made with an `async` closure for exactly the type asked for, without
    /// `initCompleted` callbacks): ``root`` is the resolution's top-level context, made the step's context (see
    /// ``AsyncContext/beginTopLevelStep(entry:key:)``) and retained for the resolver that takes it (once), and the
    /// caller calls ``factory`` with a resolver for it. Otherwise the engine makes the request along ``route``,
    /// at once: a route may leave the thread inside the engine (see ``Container/topLevelRoute(_:singleton:)``).
    @usableFromInline struct TopLevelCall {
        /// The typed factory to call (a `TypedAsyncFactory` of the service asked for), unretained: the
        /// resolution's activity record keeps its registration alive. Meaningless when ``root`` is nil.
        @usableFromInline let factory: UnsafeMutableRawPointer
        @usableFromInline let root: Unmanaged<AsyncContext>?
        let route: TopLevelRoute
    }

    /// How the top-level request for `key` (no runtime arguments) goes (see ``TopLevelCall``). For a typed
    /// transient factory, the request has nothing to check (its path is empty, and nothing records), and its
    /// resolution's top-level context is made. Not generic: the caller casts the factory back to its service type.
    @usableFromInline func topLevelCall(_ key: ServiceKey) -> TopLevelCall {
        let route = unretainedContainer._withUnsafeGuaranteedRef { $0.topLevelRoute(key, singleton: true) }
        guard case .graph(let root, let found?) = route, found.exact, !found.hasCallbacks,
            found.policy == .transient,
            let factory = found.entry._withUnsafeGuaranteedRef({ $0.asyncFactory.map(Unmanaged.passUnretained) })
        else {
            return TopLevelCall(
                factory: UnsafeMutableRawPointer(bitPattern: 1).unsafelyUnwrapped, root: nil, route: route)
        }
        root._withUnsafeGuaranteedRef { root in
            found.entry._withUnsafeGuaranteedRef { root.beginTopLevelStep(entry: $0, key: key) }
        }
        return TopLevelCall(factory: factory.toOpaque(), root: root, route: route)
    }

    /// Makes the top-level request for `key` (no runtime arguments) by the engine, along the route `call` decided;
    /// called at once, without suspending first.
    @usableFromInline
    nonisolated(nonsending) func make<Service>(
        _: Service.Type,
        key: ServiceKey,
        after call: TopLevelCall
    ) async throws -> Service {
        try await Container.makeAtTopLevel(Service.self, key: key, route: call.route, in: unretainedContainer)
    }

    /// Notes that the top-level factory this resolver was handed to (see ``topLevelCall(_:)``) has returned (or
    /// thrown), ends the resolution, and recycles its top-level context when the factory kept no reference to it.
    @usableFromInline mutating func endResolution() {
        // Borrowed for the two calls: the resolver holds the context.
        Unmanaged.passUnretained(context.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
            $0.factoryDidReturn()
            $0.endResolution()
        }
        AsyncContext.recycle(&context)
    }
}
