import WeftAtomics

/// Making a scope's instance of a `.scoped` registration, kept in the scope's ``ScopeSlot`` for it.
///
/// The general path (`makeOutOfLine`, `acquireOrBuild`, `build`, `keep`, `completeGraph`) handles every kind of
/// registration at every depth, which costs a unit of work more than its one build needs: the instance moves
/// through generic locals and an `Any` record of the graph, the claim goes through the thread's claim list, and
/// the graph is completed record by record. ``makeScopedTopLevel(_:key:state:)`` does the steps that have an effect
/// for a scope's instance resolved at depth 0 on the scope itself, in the same order:
///
/// - in one hold of the scope's lock: find (or make) the slot, bring it up to date with its registration's
///   discards, and either read its instance or claim it, as `acquire` does when the slot is empty and free;
/// - begin a new private graph (as `begin(_:graph:)` does), push the frame and the shared build (what the factory
///   resolves is checked for captive dependencies), and call the factory;
/// - in one more hold of the lock: keep the instance in the slot, hand it to the scope for teardown (or refuse it
///   when the scope ended meanwhile) and release the claim; then end the resolve.
///
/// The graph keeps no record of the instance: the record is there for later resolves in the same graph and, when
/// the resolve fails, for discarding what was stored; here the graph ends with the resolve, and nothing is stored
/// unless the resolve succeeds. A claim that is not taken (another thread or a task builds the instance) goes the
/// general way, and so does a resolve after whose factory callbacks are queued.
extension Container {
    /// Makes the `.scoped` registration `found` (an exact lookup) for `key` as `Service` in a top-level resolve on
    /// this scope: the way described above when it can, the general way otherwise.
    @usableFromInline @inline(never)
    func makeScopedTopLevel<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws -> Service {
        guard canMakeScopedTopLevel(found, state: state) else {
            return try makeOutOfLine(found, key: key, state: state)
        }
        let entry = found.entry
        let graph = GraphIdentifier(id: state.nextGraphID())
        let (current, known) = entry._withUnsafeGuaranteedRef { $0.discardCountAndTeardown() }
        let serial = entry._withUnsafeGuaranteedRef(\.serial)
        lock.lock()
        guard !lifetime.ended else {
            lock.unlock()
            return try makeOutOfLine(found, key: key, state: state)
        }
        let position =
            lifetime.slots.position(of: serial)
            ?? lifetime.slots.add(SlotState(original: entry.object, discards: current))
        let (stale, bits, claimed) = lifetime.slots.update(at: position) {
            slot -> (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Bool) in
            let stale = slot.refresh(current: current)
            if slot.claimState.admits(state), let bits = slot.bits { return (stale, bits, false) }
            guard !slot.claimState.isHeld else { return (stale, nil, false) }
            slot.claimState.take(by: state, graph: graph)
            return (stale, nil, true)
        }
        if let bits {
            // Copied under the lock: another thread may take the instance out of the slot once it is let go.
            let instance = ServiceEntry<Service>.slotInstance(bits)
            lock.unlock()
            SlotState.release(stale)
            return instance
        }
        lock.unlock()
        SlotState.release(stale)
        guard claimed else { return try makeOutOfLine(found, key: key, state: state) }
        return try buildScopedTopLevel(found, key: key, state: state, graph: graph, position: position, known: known)
    }

    /// The build of ``makeScopedTopLevel(_:key:state:)``, once `state` holds the claim of the slot at `position`
    /// for `graph`; `known` is what the registration knew of its instances' teardown when the claim was taken.
    private func buildScopedTopLevel<Service>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        graph: GraphIdentifier,
        position: Int,
        known: KnownTeardown?
    ) throws -> Service {
        let fields = state.fields
        let entry = found.entry
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
            let ended = lock.withLock { lifetime.slots.update(at: position) { $0.endClaim(of: state) } }
            if ended { BuildCoordinator.condition.broadcast() }
            defer { finish(state, restoring: nil, failed: true) }
            try throwFactoryFailed(error, key: key, path: path)
        }
        fields.pointee.factoriesRunning = 0
        fields.pointee.sharedBuilds.removeLast()
        fields.pointee.frames[0].inFactory = false
        try endTopLevel(state) {
            if fields.pointee.pending.isEmpty {
                let kept = entry._withUnsafeGuaranteedRef {
                    unsafeDowncast($0, to: ServiceEntry<Service>.self).keep(
                        instance, in: self, at: position, known: known, releasing: state)
                }
                if !kept { try throwScopeEndedWhileMaking(erase(instance), key: key, state: state) }
            } else {
                // Callbacks of what the factory made are queued: `keep` runs them, with the claim listed as
                // `acquire` lists it.
                let slot = lock.withLock { slotHandleLocked(at: position) }
                fields.pointee.claims.append(slot)
                try keep(instance, found: found, key: key, state: state, claimed: true, slot: slot, firstPending: 0)
            }
        }
        return instance
    }

    /// Whether ``makeScopedTopLevel(_:key:state:)`` can make the registration `found` itself: see above.
    @inline(__always)
    func canMakeScopedTopLevel(_ found: Lookup, state: ResolutionState) -> Bool {
        let fields = state.fields
        return isScope && fields.pointee.depth == 0 && found.exact && !found.hasCallbacks
            && fields.pointee.graphRecorder == nil && fields.pointee.preparationFrame != 0
            && weft_restored_graphs() == 0
            // Too close to the end of the stack: the general path throws the error.
            && StackGuard.currentAddress() >= fields.pointee.stackLimit
    }

    /// What ``keep(_:found:key:state:claimed:slot:firstPending:)`` does with a scope's instance: keeps it in the
    /// scope's `slot` (typed when `Value` is the registered type), handed to the scope for teardown, and records it
    /// for the graph; throws when the scope ended while it was being made, which does not keep it.
    func keepScoped<Value>(
        _ instance: Value,
        found: Lookup,
        key: ServiceKey,
        state: ResolutionState,
        in slot: ScopeSlot,
        claim: (any InstanceHolder)?
    ) throws {
        let fields = state.fields
        let erased = erase(instance)
        let kept: Bool
        if found.exact, Value.self == key.serviceType {
            kept = found.entry._withUnsafeGuaranteedRef {
                unsafeDowncast($0, to: ServiceEntry<Value>.self).keep(
                    instance, in: slot.scope, at: slot.position, releasing: nil)
            }
        } else {
            kept = slot.store(erased, inGraph: fields.pointee.graph.unsafelyUnwrapped)
        }
        if !kept {
            if let claim { releaseClaim(on: claim, state: state) }
            try throwScopeEndedWhileMaking(erased, key: key, state: state)
        }
        // Not in storage: the slot keeps the instance; the record keeps it for the rest of the graph.
        fields.pointee.made.push(
            erased as Any,
            entry: found.entry,
            graph: fields.pointee.graph.unsafelyUnwrapped,
            inStorage: false,
            policy: found.policy
        )
    }
}
