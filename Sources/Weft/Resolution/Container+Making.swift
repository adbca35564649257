/// The resolution engine: looking up registrations, running factories once per graph, detecting
/// cycles exactly, and deferring `initCompleted` callbacks until the graph's factories have returned.
extension Container {
    /// Makes `serviceType` for a factory without runtime arguments: the hot path. A registration made for
    /// exactly this type is called and its instances kept and read back typed, without a dynamic cast.
    func makeWithoutArguments<Service>(_ serviceType: Service.Type, name: String?) throws -> Service {
        try ResolutionState.withCurrent { state in
            let key = ServiceKey(serviceType: Service.self, argumentsType: noArgumentsType, name: name)
            guard let found = state.lookups.find(key, in: self) else {
                return try make(serviceType, name: name, option: nil)
            }
            return try make(found, key: key, state: state)
        }
    }

    /// Makes the registration `found` for `key` (no runtime arguments) as `Service`.
    @inline(__always)
    private func make<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws -> Service {
        if found.exact, found.policy == .shared {
            // A built singleton is returned without entering a graph, so its use is noted here; when it is not
            // built yet, `make(_:key:state:as:produce:)` notes it, as for every other path.
            return try found.entry._withUnsafeGuaranteedRef {
                try unsafeDowncast($0, to: ServiceEntry<Service>.self).completeSharedInstance(
                    for: state,
                    found: { try noteUse(of: found.entry, state: state) },
                    orElse: { try makeWithoutArguments(found, key: key, state: state) }
                )
            }
        }
        return try makeWithoutArguments(found, key: key, state: state)
    }

    private func makeWithoutArguments<Service>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState
    ) throws -> Service {
        let outer = begin(state, graph: nil)
        do {
            let instance: Service
            if found.exact {
                instance = try make(found, key: key, state: state, as: Service.self) {
                    // An exact lookup: the registration is a ServiceEntry<Service> with a plain factory.
                    try found.entry._withUnsafeGuaranteedRef {
                        try unsafeDowncast($0, to: ServiceEntry<Service>.self).plainFactory(self)
                    }
                }
            } else {
                let made = try make(found, key: key, state: state, as: Any.self) {
                    try invoke(found.entry.object, key: key, state: state)
                }
                instance = try cast(made, key: key, state: state)
            }
            finish(state, restoring: outer, failed: false)
            return instance
        } catch {
            finish(state, restoring: outer, failed: true)
            throw error
        }
    }

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
        let state = ResolutionState.current
        if option == nil, key.argumentsType == noArgumentsType, let found = state.lookups.find(key, in: self) {
            // `require(_:name:)` comes through here with an empty pack: take the typed path.
            return try make(found, key: key, state: state)
        }
        if Service.self == GraphIdentifier.self, name == nil, option == nil, state.lookups.find(key, in: self) == nil {
            guard state.depth > 0, let graph = state.graph as? Service else { throw missing(key, state: state) }
            graphEscapes(state)
            return graph
        }
        return try resolving(graph: nil) { state in
            if let found = state.lookups.find(key, in: self) {
                let instance = try make(found, key: key, state: state, as: Any.self) {
                    try invoke(found.entry.object, key: key, state: state, repeat each arguments)
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

    /// Runs `body` inside a graph: the thread's current one, `graph` when given, or a new one.
    /// The outermost call completes the graph (or, when it fails, discards what the graph stored).
    func resolving<T>(
        graph: GraphIdentifier?,
        _ body: (ResolutionState) throws -> T
    ) rethrows -> T {
        let state = ResolutionState.current
        let outer = begin(state, graph: graph)
        do {
            let result = try body(state)
            finish(state, restoring: outer, failed: false)
            return result
        } catch {
            finish(state, restoring: outer, failed: true)
            throw error
        }
    }

    /// Enters a resolve: a top-level one starts a graph (`graph`, a restored one, or a new private one).
    /// Returns the graph to restore when the resolve ends.
    @inline(__always)
    private func begin(_ state: ResolutionState, graph: GraphIdentifier?) -> GraphIdentifier? {
        let fields = state.fields
        let outer = fields.pointee.graph
        if fields.pointee.depth == 0 {
            fields.pointee.topContainer = ObjectIdentifier(self)
            if let given = graph ?? takeRestoredGraph() {
                fields.pointee.graph = given
                fields.pointee.privateGraph = nil
            } else {
                let fresh = GraphIdentifier(id: state.nextGraphID())
                fields.pointee.graph = fresh
                fields.pointee.privateGraph = fresh
            }
        } else {
            if let graph { fields.pointee.graph = graph }
            if fields.pointee.topContainer != ObjectIdentifier(self),
                !fields.pointee.keptContainers.contains(where: { $0 === self })
            {
                fields.pointee.keptContainers.append(self)
            }
        }
        fields.pointee.depth += 1
        return outer
    }

    /// Leaves a resolve; the outermost one completes the graph.
    @inline(__always)
    private func finish(_ state: ResolutionState, restoring outer: GraphIdentifier?, failed: Bool) {
        let fields = state.fields
        fields.pointee.depth -= 1
        guard fields.pointee.depth == 0 else {
            if outer != nil { fields.pointee.graph = outer }
            return
        }
        let graph = fields.pointee.graph
        fields.pointee.graph = nil
        fields.pointee.privateGraph = nil
        fields.pointee.topContainer = nil
        fields.pointee.factoriesRunning = 0
        if !fields.pointee.frames.isEmpty {
            fields.pointee.frames.removeAll()
        }
        if !fields.pointee.sharedBuilds.isEmpty {
            fields.pointee.sharedBuilds.removeAll()
        }
        if !fields.pointee.pending.isEmpty {
            // Released after the swap: a deinit may start a resolve on this thread.
            var dropped: [PendingCompletion] = []
            swap(&dropped, &fields.pointee.pending)
        }
        if fields.pointee.made.isEmpty, fields.pointee.claims.isEmpty, fields.pointee.adopted.isEmpty,
            fields.pointee.keptContainers.isEmpty
        {
            return
        }
        completeGraph(state, graph: graph, failed: failed)
    }

    /// Ends the graph of a top-level resolve that made or used instances: tells their storages, or, when
    /// the resolve failed, discards what it stored (graph-scoped instances, and shared ones whose
    /// `initCompleted` callbacks did not all run).
    private func completeGraph(_ state: ResolutionState, graph: GraphIdentifier?, failed: Bool) {
        let fields = state.fields
        // Everything the records hold leaves the state first: releasing the instances may run deinits that
        // resolve again on this thread, with records and cells of their own.
        var made: [MadeInstance] = []
        swap(&made, &fields.pointee.made)
        var instances: [Any] = []
        swap(&instances, &fields.pointee.madeInstances)
        var cells = TypedCells()
        swap(&cells, &fields.pointee.cells)
        made.withUnsafeBufferPointer { records in
            let unfinished = fields.pointee.claims
            for index in records.indices where records[index].inStorage {
                let entry = records[index].entry.object
                let discard = records[index].policy == .perGraph || unfinished.contains { $0 === entry }
                if failed, let graph, discard {
                    entry.store(nil, inGraph: graph)
                }
                entry.graphCompleted()
            }
        }
        if !fields.pointee.claims.isEmpty { releaseClaims(of: state) }
        waitForAdoptedInstances(of: state)
        var kept: [Container] = []
        swap(&kept, &fields.pointee.keptContainers)
        // The cells are out of the state, so a deinit that resolves again cannot reuse them meanwhile.
        made.withUnsafeBufferPointer { records in
            for record in records {
                if let cell = record.typed { cells.destroy(cell) }
            }
        }
        instances.removeAll(keepingCapacity: true)
        // The buffers go back only if nothing took their place meanwhile.
        cells.reset()
        if fields.pointee.cells.isUnallocated { swap(&cells, &fields.pointee.cells) }
        cells.deallocate()
        if fields.pointee.madeInstances.isEmpty { swap(&instances, &fields.pointee.madeInstances) }
        made.removeAll(keepingCapacity: true)
        if fields.pointee.made.isEmpty { swap(&made, &fields.pointee.made) }
        kept.removeAll(keepingCapacity: true)
        if fields.pointee.keptContainers.isEmpty { swap(&kept, &fields.pointee.keptContainers) }
    }

    /// The instance of `record` as `Any`.
    private func instance(of record: MadeInstance, state: ResolutionState) -> Any {
        if record.erasedIndex >= 0 { return state.fields.pointee.madeInstances[Int(record.erasedIndex)] }
        return record.typed.unsafelyUnwrapped.erased
    }

    /// Makes the current graph nameable from outside the resolve (a `Lazy`, `GraphIdentifier` or
    /// `currentObjectGraph` captured it): its graph-scoped instances go into their registrations' storage,
    /// where a later resolve in the same graph finds them.
    func graphEscapes(_ state: ResolutionState) {
        let fields = state.fields
        guard let graph = fields.pointee.privateGraph else { return }
        fields.pointee.privateGraph = nil
        for index in fields.pointee.made.indices where !fields.pointee.made[index].inStorage {
            let record = fields.pointee.made[index]
            guard record.graph == graph else { continue }
            fields.pointee.made[index].inStorage = true
            record.entry.object.store(instance(of: record, state: state), inGraph: graph)
        }
    }

    /// Returns the instance of the registration `found` for the current graph: a stored one, or a new one
    /// from `produce`. `Value` is the requested type when the lookup is exact, `Any` otherwise.
    ///
    /// Written without any `Optional<Value>` or `Result<Value, _>`: in unspecialised generic code each costs
    /// a metadata request (a lookup in the runtime's shared cache) on every call.
    @inline(__always)
    func make<Value>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        as _: Value.Type,
        produce: () throws -> Value
    ) throws -> Value {
        let fields = state.fields
        guard let graph = fields.pointee.graph else { throw missing(key, state: state) }
        try noteUse(of: found.entry, state: state)
        switch found.policy {
        case .perScope:
            throw outsideScope(key, state: state)
        case .transient:
            return try build(found, key: key, state: state, claimed: false, produce: produce)
        case .perGraph where !synchronized:
            if let index = madeIndex(of: found.entry, in: graph, state: state) {
                return try madeInstance(at: index, key: key, state: state)
            }
            if graph == fields.pointee.privateGraph {
                return try build(found, key: key, state: state, claimed: false, produce: produce)
            }
            return try acquireOrBuild(found, key: key, state: state, graph: graph, produce: produce)
        default:
            return try acquireOrBuild(found, key: key, state: state, graph: graph, produce: produce)
        }
    }

    /// Notes that the resolve in flight uses `entry`: for invalidation, when a shared instance is being made,
    /// and for a verification's recorder, when one is installed. Called once per resolve of a registration.
    @inline(__always)
    private func noteUse(of entry: EntryReference, state: ResolutionState) throws {
        let fields = state.fields
        // The recorder first: a verification records the edge even when the use is refused below.
        if let recorder = fields.pointee.graphRecorder { recorder.resolving(entry, state: state) }
        if !fields.pointee.sharedBuilds.isEmpty { try recordDependency(entry, state: state) }
    }

    /// Records that the shared instance being made uses `entry` (so that replacing or resetting `entry`
    /// discards it); throws when that would make a longer-lived instance keep a scope's instance.
    private func recordDependency(_ entry: EntryReference, state: ResolutionState) throws {
        guard let builder = state.fields.pointee.sharedBuilds.last, !(builder === entry) else { return }
        if entry.object.isScopeCopy, !builder.object.isScopeCopy {
            throw capturedScopedService(entry.object, by: builder.object, state: state)
        }
        entry.object.addDependent(builder.object)
    }

    /// Where the instance of `entry` that this thread's resolve made in `graph` is in ``ResolutionState/made``.
    @inline(__always)
    private func madeIndex(of entry: EntryReference, in graph: GraphIdentifier, state: ResolutionState) -> Int? {
        state.fields.pointee.made.withUnsafeBufferPointer { records in
            var index = records.count
            while index > 0 {
                index -= 1
                if records[index].entry === entry, records[index].graph == graph { return index }
            }
            return nil
        }
    }

    /// The instance at `index` in ``ResolutionState/made``, as `Value`: its typed copy when it has one.
    private func madeInstance<Value>(at index: Int, key: ServiceKey, state: ResolutionState) throws -> Value {
        if let cell = state.fields.pointee.made[index].typed, cell.type == Value.self {
            return cell.load(as: Value.self)
        }
        return try convert(instance(of: state.fields.pointee.made[index], state: state), key: key, state: state)
    }

    /// Takes the instance stored for the graph or scope, or claims the registration and builds one.
    private func acquireOrBuild<Value>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        graph: GraphIdentifier,
        produce: () throws -> Value
    ) throws -> Value {
        let acquired = try acquire(
            found.entry.object,
            key: key,
            state: state,
            graph: graph,
            policy: found.policy,
            coordinated: synchronized || found.policy == .shared
        )
        if let existing = acquired.instance { return try convert(existing, key: key, state: state) }
        return try build(found, key: key, state: state, claimed: acquired.claimed, produce: produce)
    }

    /// Makes a new instance of the registration `found` with `produce`, checking for cycles, keeping it for
    /// the graph or scope, and running (or queueing) its `initCompleted` callbacks.
    private func build<Value>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        claimed: Bool,
        produce: () throws -> Value
    ) throws -> Value {
        let fields = state.fields
        let graph = fields.pointee.graph.unsafelyUnwrapped
        let entry = found.entry
        let policy = found.policy
        let coordinated = synchronized || policy == .shared
        // Typed storage only when `Value` is the registered type (not `Any` on an erased path).
        let typed = found.exact && Value.self == key.serviceType
        do {
            try checkCycle(entry, key: key, state: state)
        } catch {
            if claimed { releaseClaim(on: entry.object, state: state) }
            throw error
        }

        // The callbacks queued from here on belong to this instance and what its factory made.
        let firstPending = fields.pointee.pending.count
        fields.pointee.frames.push(entry, key: key, inFactory: true)
        fields.pointee.factoriesRunning += 1
        if policy == .shared { fields.pointee.sharedBuilds.append(entry) }
        let instance: Value
        do {
            instance = try produce()
        } catch {
            let path = state.path
            fields.pointee.factoriesRunning -= 1
            fields.pointee.frames.pop()
            if policy == .shared { fields.pointee.sharedBuilds.removeLast() }
            if claimed { releaseClaim(on: entry.object, state: state) }
            if let error = error as? ResolutionError { throw error }
            throw ResolutionError(reason: .factoryFailed, key: key, path: path, underlyingError: error)
        }
        fields.pointee.factoriesRunning -= 1
        if policy == .shared { fields.pointee.sharedBuilds.removeLast() }
        fields.pointee.frames[fields.pointee.frames.count - 1].inFactory = false
        defer { fields.pointee.frames.pop() }
        if fields.pointee.preparationFrame == fields.pointee.frames.count - 1 {
            try prepare(erase(instance), entry: entry, key: key, state: state, claimed: claimed)
        }

        if policy != .transient {
            let inStorage = coordinated || graph != fields.pointee.privateGraph
            let cell = policy == .perGraph && typed ? fields.pointee.cells.store(instance) : nil
            var erasedIndex: Int32 = -1
            if inStorage || cell == nil {
                // Kept as `Any` too: for the storage, or because there is no typed cell to hold it.
                let erased = erase(instance)
                if inStorage, policy == .shared, typed {
                    entry._withUnsafeGuaranteedRef {
                        unsafeDowncast($0, to: ServiceEntry<Value>.self).storeShared(
                            instance, erased: erased, inGraph: graph)
                    }
                } else if inStorage {
                    entry.object.store(erased, inGraph: graph)
                }
                erasedIndex = Int32(fields.pointee.madeInstances.count)
                fields.pointee.madeInstances.append(erased)
            }
            fields.pointee.made.append(
                MadeInstance(
                    entry: entry,
                    graph: graph,
                    inStorage: inStorage,
                    policy: policy,
                    typed: cell,
                    erasedIndex: erasedIndex
                )
            )
        }
        if found.hasCallbacks {
            fields.pointee.pending.append(
                PendingCompletion(
                    entry: entry.object,
                    key: key,
                    // Only a deferred run needs the path (copying frames costs an allocation).
                    origin: fields.pointee.factoriesRunning > 0 ? fields.pointee.frames.recorded : [],
                    instance: erase(instance),
                    resolver: self,
                    claimed: claimed
                )
            )
        } else if claimed {
            releaseClaim(on: entry.object, state: state)
        }
        if fields.pointee.factoriesRunning == 0, fields.pointee.pending.count > firstPending {
            try runPendingCompletions(state, from: firstPending)
        }
        return instance
    }

    /// Runs the caller's preparation on the instance just made for it, before the instance is kept and
    /// before its `initCompleted` callbacks.
    private func prepare(
        _ instance: Any,
        entry: EntryReference,
        key: ServiceKey,
        state: ResolutionState,
        claimed: Bool
    ) throws {
        let fields = state.fields
        guard let preparation = fields.pointee.preparation else { return }
        fields.pointee.preparation = nil
        fields.pointee.preparationFrame = -1
        do {
            try preparation(instance)
        } catch {
            if claimed { releaseClaim(on: entry.object, state: state) }
            if let error = error as? ResolutionError { throw error }
            throw ResolutionError(reason: .initCompletedFailed, key: key, path: state.path, underlyingError: error)
        }
    }

    /// `value` as `Any`, without wrapping an `Any` in another.
    @inline(__always)
    private func erase<Value>(_ value: Value) -> Any {
        if Value.self == Any.self { return unsafeBitCast(value, to: Any.self) }
        return value
    }

    /// A stored instance as `Value`: itself when `Value` is `Any`, cast otherwise.
    @inline(__always)
    private func convert<Value>(_ instance: Any, key: ServiceKey, state: ResolutionState) throws -> Value {
        if Value.self == Any.self { return unsafeBitCast(instance as Any, to: Value.self) }
        return try cast(instance, key: key, state: state)
    }

    /// Throws when `entry` is already being made on this thread: its factory is running (the
    /// initializer cycle Swinject cannot resolve), or it is on the path twice (a cycle through
    /// `initCompleted` that never reaches a shared instance).
    private func checkCycle(_ entry: EntryReference, key: ServiceKey, state: ResolutionState) throws {
        guard let first = state.frames.firstIndex(of: entry) else { return }
        let loop = state.frames.suffix(from: first)
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
            let entry = EntryReference.passUnretained(next.entry)
            let ownFrame = state.frames.last.map { $0.entry === entry } ?? false
            if !ownFrame {
                state.frames.push(entry, key: next.key, inFactory: false, origin: next.origin)
            }
            defer { if !ownFrame { state.frames.pop() } }
            // What a shared instance's callbacks resolve is its dependency too.
            if next.claimed { state.fields.pointee.sharedBuilds.append(entry) }
            defer { if next.claimed { state.fields.pointee.sharedBuilds.removeLast() } }
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
        _ entry: _ServiceEntryBase,
        key: ServiceKey,
        state: ResolutionState,
        _ arguments: repeat each Argument
    ) throws -> Any {
        if key.argumentsType == noArguments, let made = try entry.makeErased(self) {
            return made
        }
        if let box = entry.factory as? FactoryBox<repeat each Argument> {
            return try box.make(self, repeat each arguments)
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
        state.fields.pointee.graphRecorder?.resolvingWrapper(wrapper, key: key, in: self, state: state)
        guard state.lookups.find(key, in: self) != nil else {
            return try wrapper.init(container: self, graph: state.graph, factory: nil)
        }
        if wrapper.capturesGraph { graphEscapes(state) }
        let factory: (GraphIdentifier?) throws -> Any = { [self] graph in
            try resolving(graph: graph) { state in
                guard let found = state.lookups.find(key, in: self) else { throw missing(key, state: state) }
                return try make(found, key: key, state: state, as: Any.self) {
                    try invoke(found.entry.object, key: key, state: state, repeat each arguments)
                }
            }
        }
        return try wrapper.init(container: self, graph: state.graph, factory: factory)
    }

    /// The error for a missing registration, with what exists instead.
    func missing(_ key: ServiceKey, state: ResolutionState) -> ResolutionError {
        state.fields.pointee.graphRecorder?.missing(key, in: self, state: state)
        return ResolutionError(
            reason: .missingRegistration,
            key: key,
            path: state.path + [key.pathComponent],
            suggestions: suggestions(for: key)
        )
    }

    /// The instances the current top-level resolve made or used in `graph`, as `Any`: what an async graph keeps
    /// alive between its synchronous parts.
    func instancesMade(inGraph graph: GraphIdentifier, state: ResolutionState) -> [Any] {
        var instances: [Any] = []
        for record in state.fields.pointee.made where record.graph == graph {
            instances.append(instance(of: record, state: state))
        }
        return instances
    }
}
