import WeftAtomics

/// Making a scope's instance of a `.scoped` registration (its copy's first build in that scope) for a top-level
/// resolve whose caller names the type (the public `resolve` and `require`, through `makeSpecialised(_:name:)`).
///
/// The general path (`makeOutOfLine`, `acquireOrBuild`, `build`, `keep`, `completeGraph`) handles every kind of
/// registration at every depth, which costs a unit of work more than its one build needs: the instance moves
/// through generic locals and an `Any` record of the graph, the claim goes through the thread's claim list, and
/// the graph is completed record by record. This path does the steps that have an effect for a scope's copy
/// made at depth 0, in the same order:
///
/// - begin a new private graph (as `begin(_:graph:)` does) and claim the copy, as `acquire` does when the copy
///   is empty and free (its original's discards were checked a moment before, when its typed slot was read);
/// - push the frame and the shared build (what the factory resolves is checked for captive dependencies), and
///   call the factory;
/// - store the instance (`storeShared`, which hands it to the scope, or refuses it when the scope ended
///   meanwhile), release the claim, and end the resolve.
///
/// The graph keeps no record of the instance: the record is there for later resolves in the same graph, for the
/// storage's `graphCompleted()` (a copy has no storage) and, when the resolve fails, for discarding what was
/// stored; here the graph ends with the resolve, and nothing is stored unless the resolve succeeds. A claim that
/// is not taken (the instance is stored, another thread or a task builds it) goes the general way, and so does
/// a resolve after whose factory callbacks are queued.
extension Container {
    /// Makes the shared registration `found` (an exact lookup, whose typed slot is empty) for `key` as `Service`
    /// in a top-level resolve: the way described above for a scope's copy, the general way otherwise.
    @usableFromInline @inline(never)
    func makeSharedTopLevel<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws -> Service {
        guard canMakeSharedTopLevel(found, state: state) else {
            return try makeOutOfLine(found, key: key, state: state)
        }
        let fields = state.fields
        let entry = found.entry
        let graph = GraphIdentifier(id: state.nextGraphID())
        let claimed = entry._withUnsafeGuaranteedRef {
            unsafeDowncast($0, to: ServiceEntry<Service>.self).claimEmptyScopeCopy(by: state, graph: graph)
        }
        guard claimed else { return try makeOutOfLine(found, key: key, state: state) }
        // `begin(_:graph:)` at depth 0, without a given or restored graph.
        fields.pointee.topContainer = ObjectIdentifier(self)
        fields.pointee.made.markTop()
        fields.pointee.graph = graph
        fields.pointee.privateGraph = graph
        fields.pointee.depth = 1
        // `build`: no cycle is possible with no frame on the path (the path is empty at depth 0).
        fields.pointee.frames.push(entry, key: key, inFactory: true)
        fields.pointee.factoriesRunning = 1
        fields.pointee.sharedBuilds.append(entry)
        let instance: Service
        do {
            instance = try entry._withUnsafeGuaranteedRef {
                try unsafeDowncast($0, to: ServiceEntry<Service>.self).plainFactory(self)
            }
        } catch {
            let path = pathForFailure(of: error, state: state)
            fields.pointee.factoriesRunning = 0
            fields.pointee.frames.pop()
            fields.pointee.sharedBuilds.removeLast()
            entry._withUnsafeGuaranteedRef { $0.releaseClaim(by: state) }
            defer { finish(state, restoring: nil, failed: true) }
            try throwFactoryFailed(error, key: key, path: path)
        }
        fields.pointee.factoriesRunning = 0
        fields.pointee.sharedBuilds.removeLast()
        fields.pointee.frames[0].inFactory = false
        try endTopLevel(state) {
            if fields.pointee.pending.isEmpty {
                try keepScoped(instance, found: found, key: key, state: state)
            } else {
                // Callbacks of what the factory made are queued: `keep` runs them, with the claim listed as
                // `acquire` lists it.
                fields.pointee.claims.append(entry.object)
                try keep(instance, found: found, key: key, state: state, claimed: true, firstPending: 0)
            }
        }
        return instance
    }

    /// Whether ``makeSharedTopLevel(_:key:state:)`` can make the registration `found` itself: see above.
    @inline(__always)
    func canMakeSharedTopLevel(_ found: Lookup, state: ResolutionState) -> Bool {
        let fields = state.fields
        return fields.pointee.depth == 0 && found.exact && !found.hasCallbacks
            && found.entry._withUnsafeGuaranteedRef(\.isScopeCopy) && fields.pointee.graphRecorder == nil
            && fields.pointee.preparationFrame != 0 && weft_restored_graphs() == 0
            // Too close to the end of the stack: the general path throws the error.
            && StackGuard.currentAddress() >= fields.pointee.stackLimit
    }

    /// What `keep` does for the scope's instance of ``makeSharedTopLevel(_:key:state:)`` when no callbacks are
    /// queued: stores it (handed to the scope, or refused when the scope has ended meanwhile) and releases the
    /// claim.
    @inline(__always)
    func keepScoped<Service>(
        _ instance: Service,
        found: Lookup,
        key: ServiceKey,
        state: ResolutionState
    ) throws {
        let entry = found.entry
        // A resolve made on a scope finds that scope's copies (see `scopedLookup(_:)`): the scope is `self`.
        let kept = entry._withUnsafeGuaranteedRef {
            unsafeDowncast($0, to: ServiceEntry<Service>.self).storeScoped(instance, in: isScope ? self : nil)
        }
        entry._withUnsafeGuaranteedRef {
            unsafeDowncast($0, to: ServiceEntry<Service>.self).releaseScopeCopyClaim(by: state)
        }
        if !kept { try throwScopeEndedWhileMaking(erase(instance), key: key, state: state) }
    }
}
