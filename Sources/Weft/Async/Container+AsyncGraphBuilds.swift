/// The typed async path's graph-scoped builds: a graph-scoped registration without callbacks whose factory is an
/// `async` closure for exactly the requested type is made once per graph, in a slot of the graph that the graph's
/// other tasks wait on, and handed back typed (see `Container+AsyncTyped.swift` for the routes that lead here).
extension Container {
    /// The graph's instance of `entry`, a graph-scoped registration without callbacks whose typed async factory is
    /// `factory`: the one made earlier in the graph (cast, as the general path's), or one made now, handed back
    /// typed, while the graph's other tasks that ask wait for it. What `makeInGraph` and `claimingInstance` do
    /// for any registration, in one loop. Called from the `require` inlined into a factory that resolves (see
    /// ``AsyncResolver/NestedCall``).
    @usableFromInline
    nonisolated(nonsending) static func makeInGraph<Service>(
        _ entry: EntryReference,
        factory: Unmanaged<TypedAsyncFactory<Service>>,
        key: ServiceKey,
        context unretained: Unmanaged<AsyncContext>,
        in container: Unmanaged<Container>
    ) async throws -> Service {
        // The context is borrowed, not retained: the resolve's caller holds it (see ``makeAsync(_:key:context:in:)``).
        let context = unretained
        // Generic code in an async function keeps each value of type `Service` in memory taken from the task's
        // allocator, on every call: the bookkeeping is in the non-generic helpers below, and the instance the
        // factory makes goes straight into its box (`Made`, of a fixed size, in the frame), so that none is.
        try entry._withUnsafeGuaranteedRef { entry in
            try container._withUnsafeGuaranteedRef { container in
                try context._withUnsafeGuaranteedRef {
                    try container.checkAsyncRequest(entry, scoped: false, key: key, context: $0)
                }
            }
        }
        while true {
            switch claimGraphSlot(of: entry, key: key, context: context) {
            case .stored(var made):
                noteReuse(of: entry, context: context, in: container)
                return Self.instance(&made, as: Service.self)
            case .wait(let build):
                guard
                    var made = try await Self.waitForGraphBuild(build, key: key, context: context.takeUnretainedValue())
                else { continue }
                noteReuse(of: entry, context: context, in: container)
                return Self.instance(&made, as: Service.self)
            case .build(let build):
                do {
                    let inner = context._withUnsafeGuaranteedRef { context in
                        entry._withUnsafeGuaranteedRef {
                            Unmanaged.passRetained(context.appending(entry: $0, key: key, build: build, shared: false))
                        }
                    }
                    return try Self.finishGraphBuild(
                        build,
                        made: Made(value: try await call(factory, inner: inner, key: key, in: container)),
                        context: context,
                        in: container,
                        as: Service.self
                    )
                } catch let failed as CompletionFailure {
                    // The build is finished: its instance stays the graph's, which the failed resolve ends.
                    throw failed.error
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
    private static func claimGraphSlot(of entry: EntryReference, key: ServiceKey, context: Unmanaged<AsyncContext>)
        -> AsyncClaim
    {
        context._withUnsafeGuaranteedRef { context in
            context.withGraph { graph in
                graph.lock.withLock {
                    entry._withUnsafeGuaranteedRef {
                        // The use, for a graph-scoped build in flight on the path: logged under the claim's lock.
                        if context.logsUses { context.logUseLocked($0) }
                        return graph.claimSlotLocked(of: $0, key: key, publishes: true, waiting: context)
                    }
                }
            }
        }
    }

    /// Records what the graph's instance of `entry`, when a shared instance being made on `context`'s path reuses
    /// it, was made with as that shared instance's dependencies (see ``recordReusedGraphUses(of:context:)``).
    /// Inlined: the test is on every reuse, the recording on few.
    @inline(__always)
    private static func noteReuse(
        of entry: EntryReference,
        context: Unmanaged<AsyncContext>,
        in container: Unmanaged<Container>
    ) {
        if context._withUnsafeGuaranteedRef({ $0.buildsShared }) {
            recordReuse(of: entry, context: context, in: container)
        }
    }

    /// What ``noteReuse(of:context:in:)`` records, out of line.
    @inline(never)
    private static func recordReuse(
        of entry: EntryReference,
        context: Unmanaged<AsyncContext>,
        in container: Unmanaged<Container>
    ) {
        container._withUnsafeGuaranteedRef { container in
            context._withUnsafeGuaranteedRef { container.recordReusedGraphUses(of: entry.object, context: $0) }
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
    private static func finishGraphBuild(_ build: AsyncBuild, made: consuming Made, context: Unmanaged<AsyncContext>) {
        let graph = context._withUnsafeGuaranteedRef { $0.unretainedGraph }
        graph._withUnsafeGuaranteedRef {
            $0.lock.lock()
            // Into the registration's storage only when a synchronous part of the graph may look.
            $0.hasUnpublished = true
        }
        guard build.waiters.isEmpty else {
            let parent = context._withUnsafeGuaranteedRef { $0.innermostBuild }
            return Self.finishLockedWaking(build, made: made, parent: parent, graph: graph)
        }
        // Usually no other task asked meanwhile: the instance moves into the build, without a copy to release.
        context._withUnsafeGuaranteedRef { $0.withInnermostBuild { $0.waitsFor.remove(build) } }
        build.finish(with: made)
        graph._withUnsafeGuaranteedRef { $0.lock.unlock() }
    }

    /// ``finishGraphBuild(_:made:context:)``, returning the instance as `Service`: read out of `made` first, so that
    /// `made` then moves into the build rather than being copied for it and destroyed after. For the top-level
    /// request (`context` is the resolution's top-level context), the `initCompleted` callbacks its graph queued run
    /// before the instance is handed out. Not async, so the instance it holds is not kept in memory taken from the
    /// task's allocator. Inlined: a call of its own would be generic.
    @inline(__always)
    private static func finishGraphBuild<Service>(
        _ build: AsyncBuild,
        made: consuming Made,
        context: Unmanaged<AsyncContext>,
        in container: Unmanaged<Container>,
        as _: Service.Type
    ) throws -> Service {
        let instance = Self.instance(&made, as: Service.self)
        finishGraphBuild(build, made: made, context: context)
        if context._withUnsafeGuaranteedRef({ $0.hasNoStep }) {
            try completeTopLevelRequest(context: context, in: container)
        }
        return instance
    }

    /// Runs the `initCompleted` callbacks that waited for the top-level request's factory (see
    /// `Container+AsyncCompletions.swift`); what they throw comes as a ``CompletionFailure``, so that the caller
    /// tells it from a failed build.
    @inline(never)
    private static func completeTopLevelRequest(context: Unmanaged<AsyncContext>, in container: Unmanaged<Container>)
        throws
    {
        do {
            try container._withUnsafeGuaranteedRef { container in
                try context._withUnsafeGuaranteedRef { try container.completeDeferred(root: $0) }
            }
        } catch {
            throw CompletionFailure(error: error)
        }
    }

    /// An `initCompleted` callback's failure after the build of the instance it completes had finished.
    private struct CompletionFailure: Error {
        let error: any Error
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
    private static func abandonGraphBuild(
        _ build: AsyncBuild, of entry: EntryReference, context: Unmanaged<AsyncContext>
    ) {
        let waiters = context._withUnsafeGuaranteedRef { context in
            context.withGraph { graph in
                graph.lock.withLock {
                    graph.slots.remove(entry._withUnsafeGuaranteedRef { ObjectIdentifier($0) })
                    return AsyncBuilds.finishLocked(build, .retry, parent: context.innermostBuild)
                }
            }
        }
        for waiter in waiters { waiter.resume(returning: .retry) }
    }

    /// The instance of a graph slot of an exact registration for `Service`, which its typed factory made (called
    /// directly, or through the erased factory that wraps it): a `Service`, cast once, without the check
    /// ``cast(_:key:context:)`` makes first for registrations whose instances may be of another type.
    private static func instance<Service>(_ made: UnsafePointer<Made>, as _: Service.Type) -> Service {
        // The typed factory's instance went into `Any` as a `Service`, so the box holds a value whose type is exactly
        // `Service` (for a protocol type, the existential itself, not the type inside it), read back without asking
        // the runtime to cast it: a cast to a protocol type looks up the conformance.
        //
        // A value of a type that holds one reference (a class, or an existential only classes adopt: the usual
        // service) small enough for the `Any`'s buffer is read in place (see `AsyncBuild.release(_:)` for the
        // layout): opening the `Any` copies its value and calls a generic function with it.
        let raw = UnsafeRawPointer(made)
        let type = raw.load(fromByteOffset: Made.typeOffset, as: Any.Type.self)
        if type == Service.self, MemoryLayout<Service>.size <= Made.typeOffset, TypeKind.holdsOneReference(type) {
            return raw.assumingMemoryBound(to: Service.self).pointee
        }
        func read<Boxed>(_ boxed: Boxed) -> Service {
            if Boxed.self == Service.self { return unsafeBitCast(boxed, to: Service.self) }
            return boxed as! Service
        }
        return _openExistential(made.pointee.value, do: read)
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
