import WeftAtomics

/// Making a transient or graph-scoped registration for a top-level resolve whose caller names the type (the
/// public `resolve` and `require`, inlined into the caller's module through `makeSpecialised(_:name:)`).
///
/// The general path (`makeWithoutArguments(_:key:state:)`, `make(_:key:state:as:produce:)`, `build`) keeps the
/// instance in locals of its own between the factory and its return: in unspecialised code each move of a value
/// of unknown type is a call through its value witnesses, and each local one more stack allocation. This path
/// does the same steps in the same order, but lets the factory write its result straight into the caller's
/// result, which is specialised for the type and holds it in a plain local:
///
/// - ``makeTopLevel(_:key:state:)`` begins a new private graph (as `begin(_:graph:)` does), pushes the frame and
///   calls the factory. When nothing follows the factory, which is the usual case, it also ends the resolve.
/// - Something follows the factory when nested resolves queued `initCompleted` callbacks (they run once the
///   outermost factory returns, with its instance in the graph), or when the graph escaped while a graph-scoped
///   factory ran (its instance then goes into the registration's storage too). The resolve is then left open,
///   with the frame still on the path, and the caller finishes it with ``completeTopLevel(_:found:key:state:)``,
///   which does what `build` does after the factory (`keep(_:found:key:state:claimed:slot:firstPending:)`).
///
/// A top-level graph-scoped instance with nothing after its factory is not recorded in
/// ``ResolutionState/Fields/made``: the record exists for later resolves in the same graph, and there is none
/// (the factory's own resolves of it are cycles; no callback runs; the graph ends here and nothing outside can
/// name it).
///
/// Everything else (a registration with callbacks, a caller's preparation, a recording verification, a restored
/// graph, shared, scoped and synchronized registrations) goes the general way.
extension Container {
    /// Makes the registration `found` (an exact lookup) for `key` as `Service` in a top-level resolve (the
    /// thread's depth is 0). When the resolve is left open on return (the thread's depth is not 0), the caller
    /// must pass the instance to ``completeTopLevel(_:found:key:state:)``.
    @usableFromInline @inline(never)
    func makeTopLevel<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws -> Service {
        let fields = state.fields
        // The general path in a call of its own: inlined, its locals would be part of this frame.
        guard canMakeTopLevel(found, state: state) else { return try makeOutOfLine(found, key: key, state: state) }
        let entry = found.entry
        // `begin(_:graph:)` at depth 0, without a given or restored graph.
        fields.pointee.topContainer = ObjectIdentifier(self)
        fields.pointee.made.markTop()
        let graph = GraphIdentifier(id: state.nextGraphID())
        fields.pointee.graph = graph
        fields.pointee.privateGraph = graph
        fields.pointee.depth = 1
        // `build`: no cycle is possible with no frame on the path (the path is empty at depth 0).
        fields.pointee.frames.push(entry, key: key, inFactory: true)
        fields.pointee.factoriesRunning = 1
        var failed = false
        // After the catch below, which reads the path with the frame still on it.
        defer { leaveTopLevel(found, key: key, state: state, failed: failed) }
        do {
            return try entry._withUnsafeGuaranteedRef {
                try unsafeDowncast($0, to: ServiceEntry<Service>.self).plainFactory(self)
            }
        } catch {
            failed = true
            try throwFactoryFailed(error, key: key, path: pathForFailure(of: error, state: state))
        }
    }

    /// Whether ``makeTopLevel(_:key:state:)`` can make the registration `found` itself: see above.
    @inline(__always)
    func canMakeTopLevel(_ found: Lookup, state: ResolutionState) -> Bool {
        let fields = state.fields
        guard fields.pointee.depth == 0, !found.hasCallbacks, fields.pointee.graphRecorder == nil,
            fields.pointee.preparationFrame != 0, weft_restored_graphs() == 0,
            // Too close to the end of the stack: the general path throws the error.
            StackGuard.currentAddress() >= fields.pointee.stackLimit
        else { return false }
        switch found.policy {
        case .transient:
            return true
        case .perGraph:
            return !synchronized
        default:
            return false
        }
    }

    /// What follows the factory of ``makeTopLevel(_:key:state:)``: ends the resolve when it failed or when
    /// nothing follows; otherwise leaves it open for ``completeTopLevel(_:found:key:state:)``.
    ///
    /// The usual case (the factory returned, and the graph queued and kept nothing but instances that live only in
    /// its records) is the few stores of `finish(_:restoring:failed:)` at depth 1 and the release of those records,
    /// written here so that it stays small enough to be inlined where the factory returns; every other case is
    /// ``leaveTopLevelInFull(_:key:state:failed:)``.
    @inline(__always)
    func leaveTopLevel(_ found: Lookup, key: ServiceKey, state: ResolutionState, failed: Bool) {
        let fields = state.fields
        // Only its own frame is left on the path (what `finish` clears otherwise).
        if !failed, key.name == nil, !key.hasOption, fields.pointee.depth == 1, fields.pointee.frames.count == 1,
            fields.pointee.busy & ResolutionState.Fields.keepingOrQueueing == 0, fields.pointee.made.stored == 0,
            found.policy == .transient || fields.pointee.graph == fields.pointee.privateGraph
        {
            fields.pointee.factoriesRunning = 0
            fields.pointee.frames.popPlain()
            fields.pointee.depth = 0
            fields.pointee.graph = nil
            fields.pointee.privateGraph = nil
            fields.pointee.topContainer = ResolutionState.Fields.noContainer
            // What `completeGraph(_:graph:failed:)` does when no record is in storage and nothing else is held.
            if !fields.pointee.made.isEmpty { releaseMade(fields, downTo: fields.pointee.made.mark) }
            return
        }
        leaveTopLevelInFull(found, key: key, state: state, failed: failed)
    }

    /// ``leaveTopLevel(_:key:state:failed:)`` for every case.
    @inline(never)
    func leaveTopLevelInFull(_ found: Lookup, key: ServiceKey, state: ResolutionState, failed: Bool) {
        let fields = state.fields
        fields.pointee.factoriesRunning = 0
        if !failed,
            !fields.pointee.pending.isEmpty
                || (found.policy == .perGraph && fields.pointee.graph != fields.pointee.privateGraph)
        {
            fields.pointee.frames[0].inFactory = false
            return
        }
        fields.pointee.frames.pop()
        finish(state, restoring: nil, failed: failed)
    }

    /// Completes a top-level resolve that ``makeTopLevel(_:key:state:)`` left open: `instance` is kept for the
    /// graph and the queued `initCompleted` callbacks run, as `build` does after a factory; then the resolve ends.
    @usableFromInline @inline(never)
    func completeTopLevel<Service>(_ instance: Service, found: Lookup, key: ServiceKey, state: ResolutionState) throws {
        try endTopLevel(state) {
            try keep(instance, found: found, key: key, state: state, claimed: false, firstPending: 0)
        }
    }

    /// Runs `body`, what follows a top-level factory while its frame is still on the path, then pops the frame and
    /// ends the resolve, failed when `body` threw.
    @inline(__always)
    func endTopLevel(_ state: ResolutionState, after body: () throws -> Void) throws {
        let fields = state.fields
        do {
            try body()
        } catch {
            fields.pointee.frames.pop()
            finish(state, restoring: nil, failed: true)
            throw error
        }
        fields.pointee.frames.pop()
        finish(state, restoring: nil, failed: false)
    }
}
