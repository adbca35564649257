/// The async resolution engine: async factories run here, with their own bookkeeping (``AsyncContext``,
/// ``AsyncGraph``, ``AsyncBuilds``); services with synchronous factories are made by the synchronous engine
/// on the current thread, inside the same object graph.
extension Container {
    /// Makes the registration for `key` within `context`'s graph.
    func makeAsync<Service, each Argument>(
        _: Service.Type,
        key: ServiceKey,
        context: AsyncContext,
        arguments: PackBox<repeat each Argument>
    ) async throws -> Made {
        guard let entry = entry(for: key), let factory = entry.asyncFactory else {
            return try await makeSynchronously(Service.self, key: key, context: context, arguments: arguments)
        }
        guard let box = factory as? AsyncFactoryBox<repeat each Argument> else {
            throw ResolutionError(reason: .typeMismatch, key: key, path: context.path + [key.pathComponent])
        }
        if context.steps.contains(where: { $0.entry === entry }) {
            throw ResolutionError(
                reason: .circularDependency,
                key: key,
                path: context.path + [key.pathComponent]
            )
        }
        try checkCaptive(entry, key: key, context: context)
        switch entry.configuration.policy {
        case .transient:
            let step = AsyncStep(entry: entry, key: key, build: nil, shared: false)
            return try await build(entry, box, key: key, step: step, context: context, arguments: arguments)
        case .perGraph:
            return try await makeInGraph(entry, box, key: key, context: context, arguments: arguments)
        case .shared:
            return try await makeShared(entry, box, key: key, context: context, arguments: arguments)
        case .perScope:
            let ended = outsideScopeReason() == .scopeEnded
            throw ResolutionError(
                reason: ended ? .scopeEnded : .outsideScope,
                key: key,
                path: context.path + [key.pathComponent]
            )
        }
    }

    /// A graph-scoped instance of an async factory: the graph's, or one made now (other tasks of the graph
    /// that ask meanwhile wait for it).
    private func makeInGraph<each Argument>(
        _ entry: _ServiceEntryBase,
        _ box: AsyncFactoryBox<repeat each Argument>,
        key: ServiceKey,
        context: AsyncContext,
        arguments: PackBox<repeat each Argument>
    ) async throws -> Made {
        let graph = context.graph
        let id = ObjectIdentifier(entry)
        while true {
            let slot: AsyncGraph.Slot = AsyncBuilds.lock.withLock {
                if let slot = graph.slots[id] { return slot }
                let build = AsyncBuild(key: key)
                graph.slots[id] = .building(build)
                context.builds.last?.waitsFor.append(build)
                return .made(Made(value: build))
            }
            switch slot {
            case .made(let made):
                guard let build = made.value as? AsyncBuild else { return made }
                let step = AsyncStep(entry: entry, key: key, build: build, shared: false)
                let make: () async throws -> Made = {
                    let made = try await self.build(
                        entry, box, key: key, step: step, context: context, arguments: arguments, store: graph.id)
                    AsyncBuilds.lock.withLock {
                        graph.slots[id] = .made(made)
                        graph.stored.append(entry)
                    }
                    return made
                }
                return try await finishing(build, context: context, make: make, onFailure: { graph.slots[id] = nil })
            case .building(let build):
                switch await AsyncBuilds.wait(for: build, context: context) {
                case .made(let made): return made
                case .retry: continue
                case .cycle(let path): throw ResolutionError(reason: .circularDependency, key: key, path: path)
                }
            }
        }
    }

    /// A shared instance of an async factory (`.container`, a scope's `.scoped`, custom scopes): the stored
    /// one, or one made now while other tasks that ask wait for it.
    private func makeShared<each Argument>(
        _ entry: _ServiceEntryBase,
        _ box: AsyncFactoryBox<repeat each Argument>,
        key: ServiceKey,
        context: AsyncContext,
        arguments: PackBox<repeat each Argument>
    ) async throws -> Made {
        let graph = context.graph
        let id = ObjectIdentifier(entry)
        while true {
            let claim: SharedClaim = AsyncBuilds.lock.withLock {
                if let stored = entry.storedInstance(inGraph: graph.id) { return .stored(Made(value: stored)) }
                if let build = AsyncBuilds.inFlight[id] { return .wait(build) }
                let build = AsyncBuild(key: key)
                AsyncBuilds.inFlight[id] = build
                context.builds.last?.waitsFor.append(build)
                return .build(build)
            }
            switch claim {
            case .stored(let made):
                return made
            case .wait(let build):
                switch await AsyncBuilds.wait(for: build, context: context) {
                case .made(let made): return made
                case .retry: continue
                case .cycle(let path): throw ResolutionError(reason: .circularDependency, key: key, path: path)
                }
            case .build(let build):
                let step = AsyncStep(entry: entry, key: key, build: build, shared: true)
                let make: () async throws -> Made = {
                    let made = try await self.build(
                        entry, box, key: key, step: step, context: context, arguments: arguments, store: graph.id)
                    AsyncBuilds.lock.withLock { AsyncBuilds.inFlight[id] = nil }
                    return made
                }
                return try await finishing(
                    build, context: context, make: make, onFailure: { AsyncBuilds.inFlight[id] = nil })
            }
        }
    }

    /// Runs `make`, which makes `build`'s instance, and wakes the tasks waiting for it: with the instance, or,
    /// when `make` throws, to try again (after `onFailure` ran under the lock).
    private func finishing(
        _ build: AsyncBuild,
        context: AsyncContext,
        make: () async throws -> Made,
        onFailure: () -> Void
    ) async throws -> Made {
        let parent = context.builds.last
        do {
            let made = try await make()
            let waiters = AsyncBuilds.lock.withLock { AsyncBuilds.finishLocked(build, .made(made), parent: parent) }
            for waiter in waiters { waiter.resume(returning: .made(made)) }
            return made
        } catch {
            let waiters = AsyncBuilds.lock.withLock {
                onFailure()
                return AsyncBuilds.finishLocked(build, .retry, parent: parent)
            }
            for waiter in waiters { waiter.resume(returning: .retry) }
            throw error
        }
    }

    /// Calls the async factory of `entry`, stores the instance for `store`'s graph when given, and runs the
    /// registration's `initCompleted` callbacks.
    private func build<each Argument>(
        _ entry: _ServiceEntryBase,
        _ box: AsyncFactoryBox<repeat each Argument>,
        key: ServiceKey,
        step: AsyncStep,
        context: AsyncContext,
        arguments: PackBox<repeat each Argument>,
        store graph: GraphIdentifier? = nil
    ) async throws -> Made {
        let inner = context.appending(step)
        let made: Made
        do {
            made = try await box.make(AsyncResolver(container: self, context: inner), arguments)
        } catch let error as ResolutionError {
            throw error
        } catch {
            throw ResolutionError(reason: .factoryFailed, key: key, path: inner.path, underlyingError: error)
        }
        // Stored before the callbacks run, so that a cycle they close finds the instance.
        if let graph { entry.storeMade(made.value, inGraph: graph) }
        do {
            try runSegment(inner) { _ in try entry.runInitCompleted(resolver: self, instance: made.value) }
        } catch {
            if let graph { entry.store(nil, inGraph: graph) }
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

    /// Makes `key`, whose factory is synchronous (or which has no registration, for the error), with the
    /// synchronous engine on this thread, in `context`'s graph; on the main actor when its factory needs it.
    private func makeSynchronously<Service, each Argument>(
        _: Service.Type,
        key: ServiceKey,
        context: AsyncContext,
        arguments: PackBox<repeat each Argument>
    ) async throws -> Made {
        let onMainActor = entry(for: key)?.runsOnMainActor ?? false
        let make: @Sendable () throws -> Made = {
            do {
                return try self.runSegment(context) { _ in
                    Made(
                        value: try self.make(
                            Service.self, name: key.name, option: nil, arguments: repeat each arguments.values)
                    )
                }
            } catch let error as ResolutionError {
                throw self.continuing(error, context: context)
            }
        }
        if onMainActor, !isOnMainActor() {
            return try await MainActor.run { try make() }
        }
        return try make()
    }

    /// Runs `body` in the synchronous engine, inside `context`'s graph and with its shared builder noted (for
    /// invalidation and captive scoped services); keeps what the graph made meanwhile until the graph ends.
    private func runSegment<T>(_ context: AsyncContext, _ body: (ResolutionState) throws -> T) throws -> T {
        try resolving(graph: context.graph.id) { state in
            let builder = context.sharedBuilder
            if let builder { state.fields.pointee.sharedBuilds.append(.passUnretained(builder)) }
            let result = try body(state)
            if builder != nil { state.fields.pointee.sharedBuilds.removeLast() }
            let made = instancesMade(inGraph: context.graph.id, state: state)
            if !made.isEmpty { AsyncBuilds.lock.withLock { context.graph.kept += made } }
            return result
        }
    }

    /// A synchronous resolve's error as seen from the async path `context`: the path grows its prefix, and
    /// an async factory that the synchronous part needed while it was already being made is the cycle it is.
    private func continuing(_ error: ResolutionError, context: AsyncContext) -> ResolutionError {
        var error = error
        error.path = context.path + error.path
        if error.reason == .requiresAsync, let key = error.key, let entry = entry(for: key),
            context.steps.contains(where: { $0.entry === entry })
        {
            return ResolutionError(reason: .circularDependency, key: key, path: error.path)
        }
        return error
    }

    /// Throws when a shared instance being made on `context`'s path would keep the scope's instance of `entry`.
    private func checkCaptive(_ entry: _ServiceEntryBase, key: ServiceKey, context: AsyncContext) throws {
        guard entry.isScopeCopy, let builder = context.sharedBuilder, !builder.isScopeCopy else { return }
        throw ResolutionError(reason: .captiveDependency, key: key, path: context.path + [key.pathComponent])
    }

    /// Whether the innermost scope this container resolves through has ended.
    func outsideScopeReason() -> ResolutionError.Reason {
        var container: Container? = self
        while let current = container {
            if current.isScope, current.lock.withLock({ current.lifetime?.ended ?? false }) { return .scopeEnded }
            container = current.parent
        }
        return .outsideScope
    }
}

/// What a task asking for a shared instance of an async factory found.
private enum SharedClaim {
    case stored(Made)
    case wait(AsyncBuild)
    case build(AsyncBuild)
}
