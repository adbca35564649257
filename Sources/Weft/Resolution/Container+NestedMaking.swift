/// Making a registration for a factory that is already running on this thread: the commonest resolve of all
/// (every dependency a factory resolves), and the one that reaches Weft unspecialised, through `any Resolver`.
///
/// When nothing but the factory call itself can happen, the general path of `make(_:key:state:as:produce:)` and
/// `build(_:key:state:claimed:produce:)` does a fixed set of steps, and this path does exactly those steps and
/// no others:
///
/// - The resolve runs inside a factory (``ResolutionState/Fields/factoriesRunning`` is above zero), so the graph
///   is already begun and the resolve ends it neither when it returns nor when it fails; and no `initCompleted`
///   callback can be run when this factory returns (they wait for the outermost factory).
/// - The registration has no `initCompleted` callbacks of its own and the caller prepares nothing (see
///   `Resolver.require(_:name:preparing:)`), so nothing is queued or run for the instance.
/// - No verification records. When a shared instance is being made, the use is recorded as its dependency, as
///   the general path records it.
/// - The registration is transient, or graph-scoped in a graph nothing outside can name (its instance lives
///   only in ``ResolutionState/Fields/made``), and the lookup is exact (a `ServiceEntry<Service>` with a plain
///   factory, called directly).
///
/// Everything else (the first resolve of a graph, shared and scoped registrations, callbacks, preparation,
/// a recording verification, arguments) goes the general way.
///
/// The transient factory's result goes straight to the caller's result, without a local in between: the steps
/// after the factory are `defer`s, which need no copy of what it made. In unspecialised code every move of a
/// value of unknown type is a call through its value witnesses, and every local one more stack allocation.
extension Container {
    /// Whether the registration `found` (an exact lookup) can be made by ``makeNested(_:key:state:)``: see above.
    /// `inFactory` is whether ``ResolutionState/Fields/factoriesRunning`` is above zero.
    @inline(__always)
    func canMakeNested<Service>(
        _ found: Lookup,
        as _: Service.Type,
        state: ResolutionState,
        inFactory: Bool
    ) -> Bool {
        let fields = state.fields
        // No recorder or preparation (see `ResolutionState.Fields.busy`): stricter than the general path needs (a
        // preparation for another frame), and one compare.
        guard inFactory, !found.hasCallbacks,
            fields.pointee.busy & ResolutionState.Fields.recordingOrPreparing == 0
        else { return false }
        switch found.policy {
        case .transient:
            // A factory runs in a graph (`begin` set it): a transient instance needs nothing of it.
            return true
        case .perGraph:
            guard let graph = fields.pointee.graph else { return false }
            return !synchronized && graph == fields.pointee.privateGraph && MadeRecords.fits(Service.self)
        default:
            return false
        }
    }

    /// Makes the registration `found` for `key` as `Service` in the graph of the running factory; only when
    /// ``canMakeNested(_:as:state:)``.
    @inline(__always)
    func makeNested<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws -> Service {
        if found.policy == .transient { return try makeNestedTransient(found, key: key, state: state) }
        return try makeNestedInGraph(found, key: key, state: state)
    }

    /// ``makeNested(_:key:state:)`` for a transient registration, written with no local of `Service` at all.
    /// Inlined: its callers are small entry points whose frames hold no local of the general path either (that
    /// path is out of line, see `makeOutOfLine`), and a call of its own would cost a frame and the moves of its
    /// arguments on every nested resolve.
    @inline(__always)
    func makeNestedTransient<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws -> Service {
        // Known where this is inlined into an entry point without a name.
        if key.name == nil && !key.hasOption { return try makeNestedTransient(found, plainKey: key, state: state) }
        return try makeNestedTransient(found, sideKey: key, state: state)
    }

    /// ``makeNestedTransient(_:key:state:)`` for a key with a name or an option, in a call of its own: the entry
    /// point without a name never calls it, and inlined there it would still weigh in the optimizer's choice of
    /// what else to inline.
    @inline(never)
    func makeNestedTransient<Service>(
        _ found: Lookup,
        sideKey key: ServiceKey,
        state: ResolutionState
    ) throws -> Service {
        let fields = state.fields
        let entry = found.entry
        try noteUseIfBuilding(entry, state: state)
        try enterNested(entry, key: key, state: state)
        // After the catch below, which reads the path with this frame still on it.
        defer { leaveNested(fields, key: key) }
        do {
            return try entry._withUnsafeGuaranteedRef {
                try unsafeDowncast($0, to: ServiceEntry<Service>.self).plainFactory(self)
            }
        } catch {
            try throwFactoryFailed(error, key: key, path: pathForFailure(of: error, state: state))
        }
    }

    /// ``makeNestedTransient(_:key:state:)`` for a key without a name or an option, whose frame has nothing beside
    /// the stack: leaving it is three decrements, which the `defer` inlines where the factory returns.
    @inline(__always)
    func makeNestedTransient<Service>(
        _ found: Lookup,
        plainKey key: ServiceKey,
        state: ResolutionState
    ) throws -> Service {
        let fields = state.fields
        let entry = found.entry
        try noteUseIfBuilding(entry, state: state)
        try enterNested(entry, key: key, state: state)
        // After the catch below, which reads the path with this frame still on it.
        defer {
            fields.pointee.factoriesRunning &-= 1
            fields.pointee.frames.popPlain()
            fields.pointee.depth &-= 1
        }
        do {
            return try entry._withUnsafeGuaranteedRef {
                try unsafeDowncast($0, to: ServiceEntry<Service>.self).plainFactory(self)
            }
        } catch {
            try throwFactoryFailed(error, key: key, path: pathForFailure(of: error, state: state))
        }
    }

    /// ``makeNested(_:key:state:)`` for a graph-scoped registration: the instance this graph made already, or a
    /// new one, recorded for the rest of the graph.
    @inline(__always)
    func makeNestedInGraph<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws -> Service {
        let fields = state.fields
        let entry = found.entry
        let graph = fields.pointee.graph.unsafelyUnwrapped
        if fields.pointee.busy & ResolutionState.Fields.notingUses != 0 {
            try noteGraphUseWhileBuilding(entry, state: state)
        }
        if let index = madeIndex(of: entry, in: graph, state: state) {
            keepIfOther(fields)
            return try madeInstance(at: index, key: key, state: state)
        }
        try enterNested(entry, key: key, state: state)
        // What the factory uses is logged, for a singleton that reuses the instance later (see `build`).
        let firstUse = fields.pointee.made.usesCount
        fields.pointee.openGraphBuild()
        do {
            // Recorded before the frame is left: nothing runs in between. The registration's type is `Service`
            // (an exact lookup), read from it and opened in the call: see `recordNewInstance(of:as:graph:fields:)`.
            let type = entry._withUnsafeGuaranteedRef { $0.serviceType }
            try recordNewInstance(of: entry, as: type, graph: graph, fields: fields)
        } catch {
            fields.pointee.closeGraphBuild()
            let path = pathForFailure(of: error, state: state)
            leaveNested(fields, key: key)
            try throwFactoryFailed(error, key: key, path: path)
        }
        fields.pointee.closeGraphBuild()
        let index = fields.pointee.made.count &- 1
        fields.pointee.made.setUses(at: index, from: firstUse)
        // The factory let the graph escape (a `Lazy` or `Provider` took it; the private graph, this one when the
        // factory started, is then nil): `graphEscapes(_:)` put the graph's instances into their storage, but this
        // one was not recorded yet, so it goes there now, as `keep` puts an instance of a graph that is no longer
        // private, for a later resolve in the same graph to find.
        if fields.pointee.privateGraph == nil { storeEscapedInstance(at: index, graph: graph, fields: fields) }
        leaveNested(fields, key: key)
        return fields.pointee.made.load(at: index, as: Service.self)
    }

    /// Calls the factory of `entry`, a `ServiceEntry<Instance>`, and records what it made for `graph`.
    ///
    /// Called with `Instance` opened from an existential metatype: the locals of `Instance` that carry the
    /// factory's result into its record then have a type that exists only after the opening, so their stack space
    /// (sized at run time in unspecialised code) is set up on this path alone. Of `Service` itself, it would be
    /// set up when the function this is inlined into is entered, on every nested resolve.
    @inline(__always)
    func recordNewInstance<Instance>(
        of entry: EntryReference,
        as _: Instance.Type,
        graph: GraphIdentifier,
        fields: UnsafeMutablePointer<ResolutionState.Fields>
    ) throws {
        // The factory's result goes straight into its record: in unspecialised code each move or copy of a value
        // is a value-witness call.
        fields.pointee.made.push(
            try entry._withUnsafeGuaranteedRef {
                try unsafeDowncast($0, to: ServiceEntry<Instance>.self).plainFactory(self)
            },
            entry: entry,
            graph: graph,
            inStorage: false,
            policy: .perGraph
        )
    }

    /// Puts the instance recorded at `index` into its registration's storage for `graph` too, as
    /// `graphEscapes(_:)` does for each record of a graph that escapes.
    @inline(never)
    func storeEscapedInstance(
        at index: Int,
        graph: GraphIdentifier,
        fields: UnsafeMutablePointer<ResolutionState.Fields>
    ) {
        fields.pointee.made.setInStorage(at: index)
        fields.pointee.made[index].entry.object.store(fields.pointee.made.erased(at: index), inGraph: graph)
    }

    /// What the general path does first when a shared or graph-scoped instance is being made: notes the use of
    /// `entry` (see ``noteUseWhileBuilding(_:scoped:reused:key:state:)``).
    @inline(__always)
    func noteUseIfBuilding(_ entry: EntryReference, state: ResolutionState) throws {
        if state.fields.pointee.busy & ResolutionState.Fields.notingUses != 0 {
            try noteUseWhileBuilding(entry, state: state)
        }
    }

    /// What `begin(_:graph:)` and `build(_:key:state:claimed:produce:)` do before a factory inside a graph, in the
    /// same order: this container is kept for the graph, the new instance is checked (stack depth, cycle), and
    /// its frame goes on the path.
    @inline(__always)
    func enterNested(_ entry: EntryReference, key: ServiceKey, state: ResolutionState) throws {
        let fields = state.fields
        keepIfOther(fields)
        if StackGuard.currentAddress() < fields.pointee.stackLimit { try throwTooDeep(key, state: state) }
        try checkCycle(entry, key: key, state: state)
        // Raised only now: a failed check leaves nothing to undo (the depth is what `finish` reads, and no
        // resolve can run in between).
        fields.pointee.depth &+= 1
        fields.pointee.frames.push(entry, key: key, inFactory: true)
        fields.pointee.factoriesRunning &+= 1
    }

    /// Undoes ``enterNested(_:key:state:)`` once the factory returned or failed: what `build` and `finish` do
    /// then when nothing follows the factory. `key` is the frame's: without a name or an option (known where this
    /// is inlined into an entry point without a name), the frame has nothing beside the stack to pop.
    @inline(__always)
    func leaveNested(_ fields: UnsafeMutablePointer<ResolutionState.Fields>, key: ServiceKey) {
        fields.pointee.factoriesRunning &-= 1
        if key.name == nil && !key.hasOption {
            fields.pointee.frames.popPlain()
        } else {
            fields.pointee.frames.pop()
        }
        fields.pointee.depth &-= 1
    }

    /// The part of `begin(_:graph:)` for a resolve inside a graph through another container than the top-level
    /// one: that container is kept alive until the top-level resolve ends (see
    /// ``ResolutionState/Fields/keptContainers``).
    @inline(__always)
    func keepIfOther(_ fields: UnsafeMutablePointer<ResolutionState.Fields>) {
        if fields.pointee.topContainer != ObjectIdentifier(self) { keepForGraph(fields) }
    }

    @inline(never)
    func keepForGraph(_ fields: UnsafeMutablePointer<ResolutionState.Fields>) {
        if !fields.pointee.keptContainers.contains(where: { $0 === self }) {
            fields.pointee.keptContainers.append(self)
        }
    }
}
