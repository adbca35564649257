/// The resolution engine: looking up registrations, running factories once per graph, detecting
/// cycles exactly, and deferring `initCompleted` callbacks until the graph's factories have returned.
extension Container {
    /// Makes `serviceType` for the given name and arguments, within the current thread's graph.
    func make<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        option: (any ServiceKeyOption)?,
        arguments: repeat each Argument
    ) throws -> Service {
        let key = ServiceKey(
            serviceType: Service.self,
            argumentsType: (any Resolver, repeat each Argument).self,
            name: name,
            option: option
        )
        if Service.self == GraphIdentifier.self, name == nil, option == nil, entry(for: key) == nil {
            let state = ResolutionState.current
            guard state.depth > 0, let graph = state.graph as? Service else { throw missing(key, state: state) }
            return graph
        }
        return try resolving(graph: nil) { state in
            if let entry = entry(for: key) {
                let instance = try make(entry, key: key, state: state) {
                    try invoke(entry, key: key, state: state, arguments: repeat each arguments)
                }
                return try cast(instance, key: key, state: state)
            }
            if let wrapper = Service.self as? any InstanceWrapper.Type {
                let wrappedKey = ServiceKey(
                    serviceType: wrapper.wrappedType,
                    argumentsType: key.argumentsType,
                    name: name,
                    option: option
                )
                if let made = try makeWrapper(
                    wrapper,
                    key: wrappedKey,
                    state: state,
                    arguments: repeat each arguments
                ) as? Service {
                    return made
                }
            }
            throw missing(key, state: state)
        }
    }

    /// Makes `serviceType` for a factory without runtime arguments: the common case, kept free of
    /// parameter-pack metadata.
    func makeWithoutArguments<Service>(_ serviceType: Service.Type, name: String?) throws -> Service {
        let key = ServiceKey(serviceType: Service.self, argumentsType: noArguments, name: name)
        guard let entry = entry(for: key), let box = entry.factory as? PlainFactory else {
            return try make(serviceType, name: name, option: nil)
        }
        return try resolving(graph: nil) { state in
            let instance = try make(entry, key: key, state: state) { try box.make(self) }
            return try cast(instance, key: key, state: state)
        }
    }

    /// Runs `body` inside a graph: the thread's current one, `graph` when given, or a new one.
    /// The outermost call completes the graph (or, when it fails, discards what the graph stored).
    func resolving<T>(
        graph: GraphIdentifier?,
        _ body: (ResolutionState) throws -> T
    ) rethrows -> T {
        let state = ResolutionState.current
        let outer = state.graph
        if state.depth == 0 {
            state.graph = graph ?? takeRestoredGraph() ?? GraphIdentifier()
        } else if let graph {
            state.graph = graph
        }
        state.depth += 1
        do {
            let result = try body(state)
            finish(state, restoring: outer, failed: false)
            return result
        } catch {
            finish(state, restoring: outer, failed: true)
            throw error
        }
    }

    private func finish(_ state: ResolutionState, restoring outer: GraphIdentifier?, failed: Bool) {
        state.depth -= 1
        guard state.depth == 0 else {
            if outer != nil { state.graph = outer }
            return
        }
        let made = state.made
        let graph = state.graph
        let unfinished = state.claims
        state.made.removeAll(keepingCapacity: true)
        state.pending.removeAll(keepingCapacity: true)
        state.frames.removeAll(keepingCapacity: true)
        state.factoriesRunning = 0
        state.graph = nil
        for (entry, _) in made {
            // A failed graph leaves nothing half-built behind: its graph-scoped instances and the shared
            // ones whose initCompleted callbacks did not all run are discarded.
            if failed, let graph, entry.behavior.policy == .perGraph || unfinished.contains(where: { $0 === entry }) {
                entry.store(nil, inGraph: graph)
            }
            entry.graphCompleted()
        }
        releaseClaims(of: state)
        waitForAdoptedInstances(of: state)
    }

    /// Returns the instance of `entry` for the current graph: the stored one, or a new one from `produce`.
    func make(
        _ entry: any ServiceEntryProtocol,
        key: ServiceKey,
        state: ResolutionState,
        produce: () throws -> Any
    ) throws -> Any {
        guard let graph = state.graph else { throw missing(key, state: state) }
        let (policy, hasInitCompleted) = entry.behavior
        let coordinated = synchronized || policy == .shared
        let (existing, claimed) = try acquire(
            entry,
            key: key,
            state: state,
            graph: graph,
            policy: policy,
            coordinated: coordinated
        )
        if let existing { return existing }
        do {
            try checkCycle(entry, key: key, state: state)
        } catch {
            if claimed { releaseClaim(on: entry, state: state) }
            throw error
        }

        // The callbacks queued from here on belong to this instance and what its factory made.
        let firstPending = state.pending.count
        state.frames.append(ResolutionFrame(entry: entry, key: key, inFactory: true))
        state.factoriesRunning += 1
        let instance: Any
        do {
            instance = try produce()
        } catch {
            let path = state.path
            state.factoriesRunning -= 1
            state.frames.removeLast()
            if claimed { releaseClaim(on: entry, state: state) }
            if let error = error as? ResolutionError { throw error }
            throw ResolutionError(reason: .factoryFailed, key: key, path: path, underlyingError: error)
        }
        state.factoriesRunning -= 1
        state.frames[state.frames.count - 1].inFactory = false
        defer { state.frames.removeLast() }

        if policy != .transient {
            entry.store(instance, inGraph: graph)
            state.made.append((entry, instance))
        }
        if hasInitCompleted {
            state.pending.append(
                PendingCompletion(
                    entry: entry,
                    key: key,
                    // Only a deferred run needs the path (copying frames costs an allocation).
                    origin: state.factoriesRunning > 0 ? state.frames : [],
                    instance: instance,
                    resolver: self,
                    claimed: claimed
                )
            )
        } else if claimed {
            releaseClaim(on: entry, state: state)
        }
        if state.factoriesRunning == 0 {
            try runPendingCompletions(state, from: firstPending)
        }
        return instance
    }

    /// Throws when `entry` is already being made on this thread: its factory is running (the
    /// initializer cycle Swinject cannot resolve), or it is on the path twice (a cycle through
    /// `initCompleted` that never reaches a shared instance).
    private func checkCycle(_ entry: any ServiceEntryProtocol, key: ServiceKey, state: ResolutionState) throws {
        guard let first = state.frames.firstIndex(where: { $0.entry === entry }) else { return }
        let loop = state.frames[first...]
        let throughFactories = loop.allSatisfy(\.inFactory)
        let repeated = loop.dropFirst().contains { $0.entry === entry }
        guard state.frames[first].inFactory || repeated else { return }
        throw ResolutionError(
            reason: .circularDependency,
            key: key,
            path: state.path + [key.pathComponent],
            cycleThroughCallbacks: !throughFactories
        )
    }

    /// Runs the waiting `initCompleted` callbacks queued from index `first` on (those of the instance being
    /// made and of what its factory made), oldest first, each with its registration on the path. Callbacks
    /// queued earlier belong to an enclosing make, which runs them after this one returns; callbacks left
    /// by a failure stay queued for the enclosing make.
    private func runPendingCompletions(_ state: ResolutionState, from first: Int) throws {
        while state.pending.count > first {
            let next = state.pending.remove(at: first)
            // The callbacks of the instance whose make() is draining run under its own frame.
            let ownFrame = state.frames.last?.entry === next.entry
            if !ownFrame {
                state.frames.append(
                    ResolutionFrame(entry: next.entry, key: next.key, inFactory: false, origin: next.origin)
                )
            }
            defer { if !ownFrame { state.frames.removeLast() } }
            do {
                try next.entry.runInitCompleted(resolver: next.resolver, instance: next.instance)
                if next.claimed { releaseClaim(on: next.entry, state: state) }
            } catch let error as ResolutionError {
                throw error
            } catch {
                throw ResolutionError(
                    reason: .initCompletedFailed,
                    key: next.key,
                    path: state.path,
                    underlyingError: error
                )
            }
        }
    }

    /// Calls the factory of `entry` with `arguments`.
    private func invoke<each Argument>(
        _ entry: any ServiceEntryProtocol,
        key: ServiceKey,
        state: ResolutionState,
        arguments: repeat each Argument
    ) throws -> Any {
        if let box = entry.factory as? FactoryBox<repeat each Argument> {
            return try box.make(self, repeat each arguments)
        }
        if let plain = entry.factory as? PlainFactory, key.argumentsType == noArguments {
            return try plain.make(self)
        }
        if let factory = entry.factory as? ((any Resolver, repeat each Argument)) -> Any {
            return factory((self, repeat each arguments))
        }
        throw ResolutionError(reason: .typeMismatch, key: key, path: state.path)
    }

    /// Casts what a factory made to the requested type.
    func cast<Service>(_ instance: Any, key: ServiceKey, state: ResolutionState) throws -> Service {
        guard let service = instance as? Service else {
            throw ResolutionError(
                reason: .typeMismatch,
                key: key,
                path: state.path + [key.pathComponent],
                madeType: String(describing: type(of: instance))
            )
        }
        return service
    }

    /// Makes a `Lazy`, `Provider` or `Optional` around the registration for `key`.
    private func makeWrapper<each Argument>(
        _ wrapper: any InstanceWrapper.Type,
        key: ServiceKey,
        state: ResolutionState,
        arguments: repeat each Argument
    ) throws -> Any? {
        guard let entry = entry(for: key) else {
            return try wrapper.init(container: self, graph: state.graph, factory: nil)
        }
        let factory: (GraphIdentifier?) throws -> Any = { [self] graph in
            try resolving(graph: graph) { state in
                try make(entry, key: key, state: state) {
                    try invoke(entry, key: key, state: state, arguments: repeat each arguments)
                }
            }
        }
        return try wrapper.init(container: self, graph: state.graph, factory: factory)
    }

    /// The error for a missing registration, with what exists instead.
    func missing(_ key: ServiceKey, state: ResolutionState) -> ResolutionError {
        ResolutionError(
            reason: .missingRegistration,
            key: key,
            path: state.path + [key.pathComponent],
            suggestions: suggestions(for: key)
        )
    }
}
