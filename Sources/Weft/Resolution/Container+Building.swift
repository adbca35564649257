/// Making one registration's instance within a graph: reusing the graph's or the scope's, claiming a shared
/// one, calling the factory, keeping the instance and queueing its `initCompleted` callbacks.
extension Container {
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
        if let recorder = fields.pointee.graphRecorder {
            return try makeRecorded(found, key: key, state: state, graph: graph, recorder: recorder, produce: produce)
        }
        if fields.pointee.busy & ResolutionState.Fields.notingUses != 0 {
            try noteUseWhileBuilding(
                found.entry, scoped: found.policy == .perScope, reused: found.policy == .perGraph, key: key,
                state: state)
        }
        return try make(found, key: key, state: state, graph: graph, produce: produce)
    }

    /// ``make(_:key:state:as:produce:)`` after the use is noted: the stored instance, or a new one.
    @inline(__always)
    func make<Value>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        graph: GraphIdentifier,
        produce: () throws -> Value
    ) throws -> Value {
        let fields = state.fields
        switch found.policy {
        case .perScope:
            guard let slot = scopeSlot(for: found.entry) else { try throwOutsideScope(key, state: state) }
            return try acquireOrBuild(found, key: key, state: state, graph: graph, slot: slot, produce: produce)
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
        return try build(found, key: key, state: state, claimed: false, slot: nil, produce: produce)
    }

    /// ``make(_:key:state:as:produce:)`` while a verification records: the use is recorded, and a transient or
    /// graph-scoped registration whose build completed before is answered with that build's instance (see
    /// ``GraphRecorder/Findings/complete(_:instance:)``).
    @inline(never)
    func makeRecorded<Value>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        graph: GraphIdentifier,
        recorder: GraphRecorder,
        produce: () throws -> Value
    ) throws -> Value {
        // As an unrecorded resolve notes it: a `.scoped` service that a shared one being made would keep is refused
        // here as at run time, so that the build goes on as resolution would.
        recorder.resolving(found.entry, state: state)
        if state.fields.pointee.busy & ResolutionState.Fields.notingUses != 0 {
            try noteUseWhileBuilding(
                found.entry, scoped: found.policy == .perScope, reused: found.policy == .perGraph, key: key,
                state: state)
        }
        let entry = found.entry.object
        let reusable = !found.hasCallbacks && (found.policy == .transient || found.policy == .perGraph)
        if reusable, let instance = recorder.findings.completedInstance(of: entry) {
            return try convert(instance, key: key, state: state)
        }
        let pending = state.fields.pointee.pending.count
        do {
            let made = try make(found, key: key, state: state, graph: graph, produce: produce)
            // Complete only once the callbacks of what its factory made ran: one that fails later makes it fail too.
            if reusable, state.fields.pointee.pending.count == pending {
                recorder.findings.complete(entry, instance: made)
            }
            return made
        } catch let error as ResolutionError {
            recorder.findings.failed(entry, with: error)
            throw error
        }
    }

    /// Where the instance of `entry` that this thread's resolve made in `graph` is in
    /// ``ResolutionState/Fields/made``.
    @inline(__always)
    func madeIndex(of entry: EntryReference, in graph: GraphIdentifier, state: ResolutionState) -> Int? {
        state.fields.pointee.made.lastIndex(of: entry, in: graph)
    }

    /// The instance at `index` in ``ResolutionState/Fields/made``, as `Value`: read as it is kept when that
    /// is `Value`, cast otherwise.
    @inline(__always)
    func madeInstance<Value>(at index: Int, key: ServiceKey, state: ResolutionState) throws -> Value {
        let made = state.fields.pointee.made
        if made[index].type == Value.self { return made.load(at: index, as: Value.self) }
        return try convertMadeInstance(at: index, key: key, state: state)
    }

    /// ``madeInstance(at:key:state:)`` when the instance is kept as another type than `Value`.
    func convertMadeInstance<Value>(at index: Int, key: ServiceKey, state: ResolutionState) throws -> Value {
        try convert(state.fields.pointee.made.erased(at: index), key: key, state: state)
    }

    /// Takes the instance stored for the graph or scope (in `slot`, for a `.scoped` registration), or claims it
    /// and builds one.
    ///
    /// A graph-scoped instance comes here when its graph can be named from outside (a `Lazy` or the
    /// ``GraphIdentifier`` escaped, or `withObjectGraph`): another thread may then resolve in the same graph at the
    /// same time (a `Lazy` read there), so the build is claimed as a shared one's is, and that thread waits for
    /// the instance rather than making a second one. In a synchronous part of an async graph the graph's own
    /// slots coordinate instead (see ``makeOnceInSegment(_:key:state:graph:segment:produce:)``).
    func acquireOrBuild<Value>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        graph: GraphIdentifier,
        slot: ScopeSlot? = nil,
        produce: () throws -> Value
    ) throws -> Value {
        let acquired = try acquire(
            holder(of: found.entry, in: slot),
            key: key,
            state: state,
            graph: graph,
            policy: found.policy,
            coordinated: synchronized || found.policy != .perGraph || state.segmentGraph == nil
        )
        if let existing = acquired.instance { return try convert(existing, key: key, state: state) }
        // A synchronous part of an async graph, which other threads may be building in too.
        if state.segmentGraph != nil, found.policy == .perGraph, !acquired.claimed, slot == nil {
            return try makeOnceInSegment(found, key: key, state: state, graph: graph, produce: produce)
        }
        return try build(found, key: key, state: state, claimed: acquired.claimed, slot: slot, produce: produce)
    }

    /// Where the instance of `entry` is kept: in `slot`, for a scope's instance of a `.scoped` registration, by the
    /// registration itself otherwise.
    @inline(__always)
    func holder(of entry: EntryReference, in slot: ScopeSlot?) -> any InstanceHolder {
        if let slot { return slot }
        return entry.object
    }

    /// Makes a new instance of the registration `found` with `produce`, checking for cycles, keeping it for
    /// the graph or scope, and running (or queueing) its `initCompleted` callbacks.
    ///
    /// Written so that the instance is moved, not copied, on its way out (no `defer` after it is made), and so
    /// that a transient instance with nothing to run after its factory skips
    /// ``keep(_:found:key:state:claimed:slot:firstPending:)``.
    /// Inlined (make(_:key:state:as:produce:) calls it from one place), so that a resolve without arguments is one
    /// generic frame up to the factory.
    @inline(__always)
    func build<Value>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        claimed: Bool,
        slot: ScopeSlot?,
        produce: () throws -> Value
    ) throws -> Value {
        let fields = state.fields
        let entry = found.entry
        let policy = found.policy
        do {
            if StackGuard.currentAddress() < fields.pointee.stackLimit { try throwTooDeep(key, state: state) }
            try checkCycle(entry, key: key, state: state)
        } catch {
            if claimed { releaseClaim(on: holder(of: entry, in: slot), state: state) }
            throw error
        }

        // The callbacks queued from here on belong to this instance and what its factory made.
        let firstPending = fields.pointee.pending.count
        fields.pointee.frames.push(entry, key: key, inFactory: true)
        fields.pointee.factoriesRunning += 1
        // A scope's instance is shared within its scope: what it is made with is recorded, as for a singleton.
        let shares = policy == .shared || policy == .perScope
        if shares { fields.pointee.sharedBuilds.append(entry) }
        // A graph-scoped instance: what its factory uses is logged, for a singleton that reuses it later.
        let logsUses = policy == .perGraph
        let firstUse = fields.pointee.made.usesCount
        if logsUses { fields.pointee.openGraphBuild() }
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
            let path = pathForFailure(of: error, state: state)
            fields.pointee.factoriesRunning -= 1
            fields.pointee.frames.pop()
            if shares { fields.pointee.sharedBuilds.removeLast() }
            if logsUses { fields.pointee.closeGraphBuild() }
            if claimed { releaseClaim(on: holder(of: entry, in: slot), state: state) }
            try throwFactoryFailed(error, key: key, path: path)
        }
        fields.pointee.factoriesRunning -= 1
        if shares { fields.pointee.sharedBuilds.removeLast() }
        if logsUses { fields.pointee.closeGraphBuild() }
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
            fields.pointee.made.setUses(at: fields.pointee.made.count - 1, from: firstUse)
        } else {
            do {
                try keep(
                    instance, found: found, key: key, state: state, claimed: claimed, slot: slot,
                    firstPending: firstPending)
            } catch {
                fields.pointee.frames.pop()
                throw error
            }
            if logsUses, fields.pointee.made.usesCount > firstUse { noteUses(of: entry, from: firstUse, state: state) }
        }
        fields.pointee.frames.pop()
        return instance
    }

    /// What follows the factory of ``build(_:key:state:claimed:produce:)`` while its frame is still on the
    /// path: the caller's preparation, keeping the instance for the graph or scope, and its `initCompleted`
    /// callbacks (run now when no factory is running any more, queued otherwise).
    @inline(never)
    func keep<Value>(
        _ instance: Value,
        found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        claimed: Bool,
        slot: ScopeSlot? = nil,
        firstPending: Int
    ) throws {
        let fields = state.fields
        let graph = fields.pointee.graph.unsafelyUnwrapped
        let entry = found.entry
        let policy = found.policy
        let claim = claimed ? holder(of: entry, in: slot) : nil
        if fields.pointee.preparationFrame == fields.pointee.frames.count - 1 {
            try prepare(erase(instance), key: key, state: state, claim: claim)
        }

        if let slot {
            try keepScoped(instance, found: found, key: key, state: state, in: slot, claim: claim)
        } else if policy != .transient {
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
                    if let claim { releaseClaim(on: claim, state: state) }
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
            // A transient instance is reached by no other resolve: nothing made meanwhile can hold it.
            let reachable = policy != .transient
            if reachable { fields.pointee.completing += 1 }
            fields.pointee.pending.append(
                PendingCompletion(
                    entry: entry.object,
                    key: key,
                    instance: erase(instance),
                    resolver: self,
                    // Only a deferred run needs the path (copying frames costs an allocation).
                    origin: .frames(fields.pointee.factoriesRunning > 0 ? fields.pointee.frames.recorded : []),
                    claim: claim,
                    reachable: reachable,
                    storedIn: nil,
                    holder: policy == .shared || policy == .perScope
                        ? claim.map { _ in entry.object } : fields.pointee.sharedBuilds.last?.object
                )
            )
        } else if let claim {
            releaseCompletedClaim(on: claim, state: state)
        }
        if fields.pointee.factoriesRunning == 0, fields.pointee.pending.count > firstPending {
            if let deferral = state.segmentDeferral,
                deferSegmentCompletions(state, from: firstPending, to: deferral)
            {
                return
            }
            try runPendingCompletions(state, from: firstPending)
        }
    }

    /// Runs the caller's preparation on the instance just made for it, before the instance is kept and
    /// before its `initCompleted` callbacks.
    func prepare(
        _ instance: Any,
        key: ServiceKey,
        state: ResolutionState,
        claim: (any InstanceHolder)?
    ) throws {
        let fields = state.fields
        guard let preparation = fields.pointee.preparation else { return }
        fields.pointee.preparation = nil
        fields.pointee.preparationFrame = -1
        do {
            try preparation(instance)
        } catch {
            if let claim { releaseClaim(on: claim, state: state) }
            if let error = error as? ResolutionError { throw error }
            throw ResolutionError(reason: .initCompletedFailed, key: key, path: state.path, underlyingError: error)
        }
    }

    /// `value` as `Any`, without wrapping an `Any` in another.
    @inline(__always)
    func erase<Value>(_ value: Value) -> Any {
        if Value.self == Any.self { return unsafeBitCast(value, to: Any.self) }
        return value
    }

    /// A stored instance as `Value`: itself when `Value` is `Any`, cast otherwise.
    @inline(__always)
    func convert<Value>(_ instance: Any, key: ServiceKey, state: ResolutionState) throws -> Value {
        if Value.self == Any.self { return unsafeBitCast(instance as Any, to: Value.self) }
        return try cast(instance, key: key, state: state)
    }
}
