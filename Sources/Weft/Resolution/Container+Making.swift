/// The resolution engine: looking up registrations, running factories once per graph, detecting
/// cycles exactly, and deferring `initCompleted` callbacks until the graph's factories have returned.
extension Container {
    /// Makes `serviceType` for a factory without runtime arguments: the hot path. A registration made for
    /// exactly this type is called and its instances kept and read back typed, without a dynamic cast.
    @inline(__always)
    func makeWithoutArguments<Service>(_ serviceType: Service.Type, name: String?) throws -> Service {
        // Without a name, in code of its own, where the key's name is known to be nil: copying and comparing it
        // costs nothing.
        guard let name else {
            return try ResolutionState.withCurrent { state in
                try make(ServiceKey(serviceType: Service.self, argumentsType: noArgumentsType), state: state)
            }
        }
        return try makeNamed(serviceType, name: name)
    }

    /// ``makeWithoutArguments(_:name:)`` with a name.
    @inline(never)
    private func makeNamed<Service>(_ serviceType: Service.Type, name: String) throws -> Service {
        try ResolutionState.withCurrent { state in
            try make(ServiceKey(serviceType: Service.self, argumentsType: noArgumentsType, name: name), state: state)
        }
    }

    @inline(__always)
    private func make<Service>(_ key: ServiceKey, state: ResolutionState) throws -> Service {
        let entered = state.enterEngine()
        defer { state.leaveEngine(entered) }
        guard let found = state.lookups.find(key, in: self) else {
            return try make(Service.self, name: key.name, option: nil)
        }
        return try make(found, key: key, state: state)
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
                    orElse: { try makeOutOfLine(found, key: key, state: state) }
                )
            }
        }
        return try makeWithoutArguments(found, key: key, state: state)
    }

    /// ``makeWithoutArguments(_:key:state:)`` in a call of its own, so that the path of a built singleton
    /// stays small.
    @inline(never)
    private func makeOutOfLine<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws -> Service {
        try makeWithoutArguments(found, key: key, state: state)
    }

    /// Makes the registration `found` for `key` (no runtime arguments) as `Service`, in a graph.
    @inline(__always)
    private func makeWithoutArguments<Service>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState
    ) throws -> Service {
        let outer = begin(state, graph: nil)
        do {
            // Each branch returns its own result (one local assigned in both would cost a move).
            if found.exact {
                let instance = try make(found, key: key, state: state, as: Service.self) {
                    // An exact lookup: the registration is a ServiceEntry<Service> with a plain factory.
                    try found.entry._withUnsafeGuaranteedRef {
                        try unsafeDowncast($0, to: ServiceEntry<Service>.self).plainFactory(self)
                    }
                }
                finish(state, restoring: outer, failed: false)
                return instance
            }
            let made = try make(found, key: key, state: state, as: Any.self) {
                try invoke(found.entry.object, key: key, state: state)
            }
            let instance: Service = try cast(made, key: key, state: state)
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
        let entered = state.enterEngine()
        defer { state.leaveEngine(entered) }
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
        let entered = state.enterEngine()
        defer { state.leaveEngine(entered) }
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
    /// Returns the graph to restore when the resolve ends: nil when `graph` is nil, which leaves it as it is.
    @inline(__always)
    private func begin(_ state: ResolutionState, graph: GraphIdentifier?) -> GraphIdentifier? {
        let fields = state.fields
        let outer = graph == nil ? nil : fields.pointee.graph
        if fields.pointee.depth == 0 {
            fields.pointee.topContainer = ObjectIdentifier(self)
            // Records below the top belong to a graph that is being released (a deinit started this resolve).
            fields.pointee.made.markTop()
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
    /// `initCompleted` callbacks did not all run); then releases the instances.
    ///
    /// Telling a storage or releasing an instance may run a deinit that resolves again on this thread: that
    /// resolve starts a graph of its own above ``ResolutionState/Fields/made``'s top and pops back to it, so
    /// the records are read by index, through `fields`, after every call that may run one.
    private func completeGraph(_ state: ResolutionState, graph: GraphIdentifier?, failed: Bool) {
        let fields = state.fields
        let first = fields.pointee.made.mark
        // Only instances also in their registration's storage have a storage to tell.
        let end = fields.pointee.made.stored > 0 ? fields.pointee.made.count : first
        // A failed resolve discards the shared instances it claimed and did not complete: looked up in a set,
        // so that a wide graph that fails is not quadratic.
        let unfinished = failed ? fields.pointee.claims.identifiers : []
        var index = first
        while index < end {
            let record = fields.pointee.made[index]
            index += 1
            guard record.inStorage else { continue }
            let entry = record.entry.object
            if failed, let graph, record.policy == .perGraph || unfinished.contains(ObjectIdentifier(entry)) {
                entry.store(nil, inGraph: graph)
            }
            entry.graphCompleted()
        }
        if !fields.pointee.claims.isEmpty { releaseClaims(of: state) }
        if !fields.pointee.adopted.isEmpty { waitForAdoptedInstances(of: state) }
        // Kept alive until the instances are released, out of the state so that a resolve a deinit starts
        // meanwhile keeps its own.
        var kept: [Container]?
        if !fields.pointee.keptContainers.isEmpty {
            kept = fields.pointee.keptContainers
            fields.pointee.keptContainers = []
        }
        // Newest first, each in place: the slot stays taken while its instance is released.
        while fields.pointee.made.count > first {
            let last = fields.pointee.made.count - 1
            fields.pointee.made.destroy(at: last)
            fields.pointee.made.count = last
        }
        if var kept {
            kept.removeAll(keepingCapacity: true)
            if fields.pointee.keptContainers.isEmpty { fields.pointee.keptContainers = kept }
        }
    }

    /// Makes the current graph nameable from outside the resolve (a `Lazy`, `GraphIdentifier` or
    /// `currentObjectGraph` captured it): its graph-scoped instances go into their registrations' storage,
    /// where a later resolve in the same graph finds them.
    func graphEscapes(_ state: ResolutionState) {
        let fields = state.fields
        guard let graph = fields.pointee.privateGraph else { return }
        fields.pointee.privateGraph = nil
        var index = fields.pointee.made.mark
        while index < fields.pointee.made.count {
            let record = fields.pointee.made[index]
            if !record.inStorage, record.graph == graph {
                fields.pointee.made.setInStorage(at: index)
                record.entry.object.store(fields.pointee.made.erased(at: index), inGraph: graph)
            }
            index += 1
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
        guard let graph = fields.pointee.graph else { try throwMissing(key, state: state) }
        try noteUse(of: found.entry, state: state)
        switch found.policy {
        case .perScope:
            try throwOutsideScope(key, state: state)
        case .transient:
            break
        case .perGraph where !synchronized:
            if let index = madeIndex(of: found.entry, in: graph, state: state) {
                return try madeInstance(at: index, key: key, state: state)
            }
            if graph != fields.pointee.privateGraph {
                return try acquireOrBuild(found, key: key, state: state, graph: graph, produce: produce)
            }
        default:
            return try acquireOrBuild(found, key: key, state: state, graph: graph, produce: produce)
        }
        // Transient, or graph scope in a graph nothing outside can name: no stored instance to look for. One call
        // site, so that build() is inlined here once.
        return try build(found, key: key, state: state, claimed: false, produce: produce)
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
    @inline(never)
    private func recordDependency(_ entry: EntryReference, state: ResolutionState) throws {
        guard let builder = state.fields.pointee.sharedBuilds.last, !(builder === entry) else { return }
        if entry.object.isScopeCopy, !builder.object.isScopeCopy {
            throw capturedScopedService(entry.object, state: state)
        }
        if !entry.object.addDependent(builder.object) {
            // `entry` was replaced or removed after this resolve found it: what is being built with it is stale.
            builder.object.discardInstanceAndDependents()
        }
    }

    /// Where the instance of `entry` that this thread's resolve made in `graph` is in
    /// ``ResolutionState/Fields/made``.
    @inline(__always)
    private func madeIndex(of entry: EntryReference, in graph: GraphIdentifier, state: ResolutionState) -> Int? {
        state.fields.pointee.made.lastIndex(of: entry, in: graph)
    }

    /// The instance at `index` in ``ResolutionState/Fields/made``, as `Value`: read as it is kept when that
    /// is `Value`, cast otherwise.
    @inline(__always)
    private func madeInstance<Value>(at index: Int, key: ServiceKey, state: ResolutionState) throws -> Value {
        let made = state.fields.pointee.made
        if made[index].type == Value.self { return made.load(at: index, as: Value.self) }
        return try convertMadeInstance(at: index, key: key, state: state)
    }

    /// ``madeInstance(at:key:state:)`` when the instance is kept as another type than `Value`.
    private func convertMadeInstance<Value>(at index: Int, key: ServiceKey, state: ResolutionState) throws -> Value {
        try convert(state.fields.pointee.made.erased(at: index), key: key, state: state)
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
    ///
    /// Written so that the instance is moved, not copied, on its way out (no `defer` after it is made), and
    /// so that a transient instance with nothing to run after its factory skips ``keep(_:found:key:state:claimed:firstPending:)``.
    /// Inlined (make(_:key:state:as:produce:) calls it from one place), so that a resolve without arguments is one
    /// generic frame up to the factory.
    @inline(__always)
    private func build<Value>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        claimed: Bool,
        produce: () throws -> Value
    ) throws -> Value {
        let fields = state.fields
        let entry = found.entry
        let policy = found.policy
        do {
            if StackGuard.currentAddress() < fields.pointee.stackLimit { try throwTooDeep(key, state: state) }
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
            if found.exact, Value.self == key.serviceType {
                // The registration is a ServiceEntry<Value> with a plain factory: called here, without `produce`'s
                // closures in between.
                instance = try entry._withUnsafeGuaranteedRef {
                    try unsafeDowncast($0, to: ServiceEntry<Value>.self).plainFactory(self)
                }
            } else {
                instance = try produce()
            }
        } catch {
            let path = state.path
            fields.pointee.factoriesRunning -= 1
            fields.pointee.frames.pop()
            if policy == .shared { fields.pointee.sharedBuilds.removeLast() }
            if claimed { releaseClaim(on: entry.object, state: state) }
            try throwFactoryFailed(error, key: key, path: path)
        }
        fields.pointee.factoriesRunning -= 1
        if policy == .shared { fields.pointee.sharedBuilds.removeLast() }
        let frame = fields.pointee.frames.count - 1
        fields.pointee.frames[frame].inFactory = false
        // When nothing runs after the factory, a transient instance is done, and a graph-scoped one of a graph
        // nothing outside can name only needs its record: what keep() would do, without its checks.
        let simple =
            !found.hasCallbacks && !claimed && fields.pointee.preparationFrame != frame
            && fields.pointee.pending.count == firstPending
        if simple, policy == .transient {
            // Done.
        } else if simple, policy == .perGraph, !synchronized, fields.pointee.graph == fields.pointee.privateGraph,
            found.exact, Value.self == key.serviceType, MadeRecords.fits(Value.self)
        {
            fields.pointee.made.push(
                instance,
                entry: entry,
                graph: fields.pointee.graph.unsafelyUnwrapped,
                inStorage: false,
                policy: policy
            )
        } else {
            do {
                try keep(instance, found: found, key: key, state: state, claimed: claimed, firstPending: firstPending)
            } catch {
                fields.pointee.frames.pop()
                throw error
            }
        }
        fields.pointee.frames.pop()
        return instance
    }

    /// What follows the factory of ``build(_:key:state:claimed:produce:)`` while its frame is still on the
    /// path: the caller's preparation, keeping the instance for the graph or scope, and its `initCompleted`
    /// callbacks (run now when no factory is running any more, queued otherwise).
    @inline(never)
    private func keep<Value>(
        _ instance: Value,
        found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        claimed: Bool,
        firstPending: Int
    ) throws {
        let fields = state.fields
        let graph = fields.pointee.graph.unsafelyUnwrapped
        let entry = found.entry
        let policy = found.policy
        if fields.pointee.preparationFrame == fields.pointee.frames.count - 1 {
            try prepare(erase(instance), entry: entry, key: key, state: state, claimed: claimed)
        }

        if policy != .transient {
            let inStorage = synchronized || policy == .shared || graph != fields.pointee.privateGraph
            // Typed only when `Value` is the registered type (not `Any` on an erased path).
            let typed = found.exact && Value.self == key.serviceType
            if policy == .perGraph, typed, MadeRecords.fits(Value.self) {
                // Kept as the type it was asked for, read back without a cast.
                if inStorage { entry.object.store(erase(instance), inGraph: graph) }
                fields.pointee.made.push(instance, entry: entry, graph: graph, inStorage: inStorage, policy: policy)
            } else {
                let erased = erase(instance)
                var kept = true
                if inStorage, policy == .shared, typed {
                    kept = entry._withUnsafeGuaranteedRef {
                        unsafeDowncast($0, to: ServiceEntry<Value>.self).storeShared(
                            instance, erased: erased, inGraph: graph)
                    }
                } else if inStorage {
                    kept = entry.object.store(erased, inGraph: graph)
                }
                if !kept {
                    if claimed { releaseClaim(on: entry.object, state: state) }
                    try throwScopeEndedWhileMaking(erased, key: key, state: state)
                }
                fields.pointee.made.push(
                    erased as Any,
                    entry: entry,
                    graph: graph,
                    inStorage: inStorage,
                    policy: policy
                )
            }
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
    @inline(__always)
    private func checkCycle(_ entry: EntryReference, key: ServiceKey, state: ResolutionState) throws {
        guard let first = state.fields.pointee.frames.firstIndex(of: entry) else { return }
        try checkCycle(entry, key: key, state: state, from: first)
    }

    /// The rest of ``checkCycle(_:key:state:)`` when `entry` is on the path from frame `first` on.
    private func checkCycle(_ entry: EntryReference, key: ServiceKey, state: ResolutionState, from first: Int) throws {
        let loop = state.frames.suffix(from: first)
        let throughFactories = loop.allSatisfy(\.inFactory)
        let repeated = loop.dropFirst().contains { $0.entry === entry }
        guard state.frames[first].inFactory || repeated else { return }
        let request = state.fields.pointee.wrapperRequest
        throw ResolutionError(
            reason: .circularDependency,
            key: key,
            path: state.path + [key.pathComponent],
            cycleThroughCallbacks: !throughFactories,
            closingWrapper: request.flatMap { $0.frames == state.frames.count ? "\($0.wrapper)" : nil }
        )
    }

    // The errors of the engine's generic functions are made and thrown out of line, so that their space is not
    // part of those functions' frames (one set per level of a deep graph).

    @inline(never)
    private func throwMissing(_ key: ServiceKey, state: ResolutionState) throws -> Never {
        throw missing(key, state: state)
    }

    @inline(never)
    private func throwOutsideScope(_ key: ServiceKey, state: ResolutionState) throws -> Never {
        throw outsideScope(key, path: state.path + [key.pathComponent])
    }

    /// Rethrows a factory's ``ResolutionError`` as it is, and wraps any other error as `.factoryFailed`.
    @inline(never)
    private func throwFactoryFailed(_ error: any Error, key: ServiceKey, path: [String]) throws -> Never {
        if let error = error as? ResolutionError { throw error }
        throw ResolutionError(reason: .factoryFailed, key: key, path: path, underlyingError: error)
    }

    /// Throws `.scopeEnded` for an instance whose scope ended while it was being made, after tearing the
    /// instance down (a synchronous teardown here, an async one in a task of its own; failures are logged).
    @inline(never)
    private func throwScopeEndedWhileMaking(_ instance: Any, key: ServiceKey, state: ResolutionState) throws -> Never {
        Container.tearDownDetached(instance, label: key.pathComponent)
        // The instance's own frame is still on the path.
        throw ResolutionError(reason: .scopeEnded, key: key, path: state.path)
    }

    /// Throws the error for a resolve that would start a new instance too close to the end of the thread's
    /// stack. Out of line, so that the error's space is not part of every build's frame.
    @inline(never)
    private func throwTooDeep(_ key: ServiceKey, state: ResolutionState) throws -> Never {
        let stack = state.stack
        throw ResolutionError(
            reason: .tooDeep,
            key: key,
            path: state.path + [key.pathComponent],
            stackUse: (used: Int(stack.used(at: StackGuard.currentAddress())), size: Int(stack.size))
        )
    }

    /// Runs the waiting `initCompleted` callbacks queued from index `first` on (those of the instance being
    /// made and of what its factory made), oldest first, each with its registration on the path. Callbacks
    /// queued earlier belong to an enclosing make, which runs them after this one returns; callbacks left
    /// by a failure stay queued for the enclosing make.
    private func runPendingCompletions(_ state: ResolutionState, from first: Int) throws {
        // Read in place and removed together at the end (removing each as it runs would make a wide graph
        // quadratic); callbacks queued meanwhile go to the end and run in turn.
        var index = first
        defer { state.pending.removeSubrange(first..<index) }
        while index < state.pending.count {
            let next = state.pending[index]
            index += 1
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
            return try wrapper.init(container: self, graph: state.graph, key: key, factory: nil)
        }
        if wrapper.capturesGraph { graphEscapes(state) }
        let factory: (GraphIdentifier?) throws -> Any = { [self] graph in
            try resolving(graph: graph) { state in
                guard let found = state.lookups.find(key, in: self) else { throw missing(key, state: state) }
                let outer = state.fields.pointee.wrapperRequest
                state.fields.pointee.wrapperRequest = (state.frames.count, wrapper)
                defer { state.fields.pointee.wrapperRequest = outer }
                return try make(found, key: key, state: state, as: Any.self) {
                    try invoke(found.entry.object, key: key, state: state, repeat each arguments)
                }
            }
        }
        return try wrapper.init(container: self, graph: state.graph, key: key, factory: factory)
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
        let fields = state.fields
        var instances: [Any] = []
        var index = fields.pointee.made.mark
        while index < fields.pointee.made.count {
            if fields.pointee.made[index].graph == graph { instances.append(fields.pointee.made.erased(at: index)) }
            index += 1
        }
        return instances
    }
}
