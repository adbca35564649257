/// One slot of a scope (see ``SlotState``) as the engine's general paths hold it (see ``InstanceHolder``): claimed,
/// waited for, stored and released as any shared instance is, with the same state machine as a registration's own
/// (``BuildClaimState``), under the scope's lock. Made on first need by such a path (the common top-level resolve of
/// a scope's instance needs none, see `Container+ScopedMaking.swift`), then kept by the slot.
final class ScopeSlot: InstanceHolder, @unchecked Sendable {
    /// The scope, which keeps its slots: a slot is used only by resolves through its scope, which hold the scope,
    /// and by threads and tasks waiting for its build, which such a resolve started.
    unowned(unsafe) let scope: Container
    /// Where the slot is in the scope's ``ScopeSlots``.
    let position: Int
    /// The slot's registration (see ``SlotState/original``).
    unowned(unsafe) let original: _ServiceEntryBase

    init(scope: Container, position: Int, original: _ServiceEntryBase) {
        self.scope = scope
        self.position = position
        self.original = original
    }

    /// Calls `body` with the slot's state; the caller holds the scope's lock.
    @inline(__always)
    private func withStateLocked<R>(_ body: (inout SlotState) -> R) -> R {
        scope.lifetime.slots.update(at: position, body)
    }

    var registration: _ServiceEntryBase { original }

    func claim(by state: ResolutionState, graph: GraphIdentifier, policy: SharingPolicy, coordinated: Bool)
        -> BuildClaim
    {
        let current = original.discardCount()
        scope.lock.lock()
        let (claim, stale) = withStateLocked { slot -> (BuildClaim, UnsafeMutableRawPointer?) in
            let stale = slot.refresh(current: current)
            if !slot.claimState.admits(state) {
                guard slot.claimState.isHeldByTask else { return (.busy, stale) }
                if slot.claimState.lendsTaskInstance(to: graph), let bits = slot.bits {
                    return (.stored(original.erasedSlotInstance(bits)), stale)
                }
                return (slot.claimState.refusalWhileTaskHolds, stale)
            }
            if let bits = slot.bits { return (.stored(original.erasedSlotInstance(bits)), stale) }
            guard coordinated, !slot.claimState.isHeld else { return (.free, stale) }
            slot.claimState.take(by: state, graph: graph)
            return (.claimed, stale)
        }
        scope.lock.unlock()
        SlotState.release(stale)
        return claim
    }

    func releaseClaim(by state: ResolutionState) {
        scope.lock.lock()
        let ended = withStateLocked { $0.endClaim(of: state) }
        scope.lock.unlock()
        if ended { BuildCoordinator.condition.broadcast() }
    }

    var builder: (state: ResolutionState, graph: GraphIdentifier)? {
        scope.lock.withLock { withStateLocked { $0.claimState.holder } }
    }

    /// The instance the builder keeps in the slot: it is kept there once its factory returned, before its
    /// callbacks run, so that a thread whose wait would close a cycle through those callbacks takes it (see
    /// ``BuildCoordinator/waitForBuilder(of:key:state:offered:)``), as for a registration's own instance.
    ///
    /// Read under the coordinator's lock, so without ``SlotState/refresh(current:)``: a stale instance is not
    /// offered, and is left for the next claim to release (its deinit may call back into the container).
    func instanceOfBuilder(inGraph graph: GraphIdentifier) -> Any? {
        let current = original.discardCount()
        scope.lock.lock()
        defer { scope.lock.unlock() }
        return withStateLocked { slot in
            guard slot.discards == current, let bits = slot.bits else { return nil }
            return original.erasedSlotInstance(bits)
        }
    }

    func storedInstance(inGraph graph: GraphIdentifier) -> Any? {
        let current = original.discardCount()
        scope.lock.lock()
        let (instance, stale) = withStateLocked { slot in
            let stale = slot.refresh(current: current)
            return (slot.bits.map { original.erasedSlotInstance($0) }, stale)
        }
        scope.lock.unlock()
        SlotState.release(stale)
        return instance
    }

    func store(_ instance: Any?, inGraph graph: GraphIdentifier) -> Bool {
        guard let instance else {
            discard()
            return true
        }
        guard let made = original.slotBits(ofErased: instance) else { return true }
        return scope.keepScoped(made, at: position, erased: instance, kind: original.teardownKind(of: instance))
    }

    func storeMade(_ instance: Any, inGraph graph: GraphIdentifier) -> Bool {
        store(instance, inGraph: graph)
    }

    /// Discards the instance (a resolve that made it failed before it was complete).
    func discard() {
        scope.lock.lock()
        let taken = withStateLocked { slot in
            defer { slot.bits = nil }
            return slot.bits
        }
        scope.lock.unlock()
        SlotState.release(taken)
    }

    func claimForTask(key: ServiceKey, graph: GraphIdentifier) -> TaskClaim {
        let current = original.discardCount()
        scope.lock.lock()
        let (claim, stale) = withStateLocked { slot -> (TaskClaim, UnsafeMutableRawPointer?) in
            let stale = slot.refresh(current: current)
            // A build in flight first: its instance may be stored already while its callbacks still run.
            if let taskBuild = slot.claimState.taskBuild { return (.wait(taskBuild), stale) }
            if let bits = slot.bits { return (.stored(original.erasedSlotInstance(bits)), stale) }
            let build = AsyncBuild(key: key)
            slot.claimState.take(by: build, graph: graph)
            return (.claimed(build, readStorageFirst: false), stale)
        }
        scope.lock.unlock()
        SlotState.release(stale)
        return claim
    }

    func beginTaskCompletion(_ build: AsyncBuild) {
        scope.lock.withLock { withStateLocked { $0.claimState.beginTaskCompletion(build) } }
    }

    func endTaskBuild(_ build: AsyncBuild) -> Bool {
        // A registration that discarded since the claim: the build is stale, and its instance goes now rather than
        // at the next claim, which the waiters, handed the instance directly, would not make.
        let current = original.discardCount()
        scope.lock.lock()
        let (ended, kept, stale) = withStateLocked { slot -> (Bool, Bool, UnsafeMutableRawPointer?) in
            let stale = slot.refresh(current: current)
            // Only a task takes a claim over (from a thread whose build is about to fail): the build still holds it.
            guard slot.claimState.taskBuild === build else { return (false, true, stale) }
            return (true, slot.claimState.end(), stale)
        }
        scope.lock.unlock()
        if ended { BuildCoordinator.condition.broadcast() }
        SlotState.release(stale)
        return kept
    }

    var waitBuilder: ResolutionState? { builder?.state }
    var offersInstance: Bool {
        guard let builder else { return false }
        return instanceOfBuilder(inGraph: builder.graph) != nil
    }
}

extension SlotState {
    /// Ends the claim `state` holds, if it holds it; returns whether it ended one (the caller wakes the waiters
    /// once it has let go of the lock).
    @inline(__always)
    mutating func endClaim(of state: ResolutionState) -> Bool {
        guard claimState.isHeld, claimState.admits(state) else { return false }
        _ = claimState.end()
        return true
    }
}

extension Container {
    /// This scope's handle of the slot at `position` (see ``ScopeSlot``), made on first need; the caller holds the
    /// lock.
    func slotHandleLocked(at position: Int) -> ScopeSlot {
        lifetime.slots.update(at: position) { slot in
            if let handle = slot.handle { return handle }
            let handle = ScopeSlot(scope: self, position: position, original: slot.original)
            slot.handle = handle
            return handle
        }
    }

    /// Keeps `made`, a new instance (also given erased, for teardown), in the slot at `position`, and hands it to
    /// this scope to tear down as `kind` says; a build made stale meanwhile is handed over but not kept. Returns
    /// false, keeping nothing, when the scope has ended meanwhile. With `releasing`, the claim that state holds
    /// ends in the same hold of the lock.
    @inline(__always)
    func keepScoped(
        _ made: UnsafeMutableRawPointer,
        at position: Int,
        erased: @autoclosure () -> Any,
        kind: TeardownKind,
        releasing state: ResolutionState? = nil
    ) -> Bool {
        lock.lock()
        guard !lifetime.ended else {
            let ended = lifetime.slots.update(at: position) { slot in state.map { slot.endClaim(of: $0) } ?? false }
            lock.unlock()
            if ended { BuildCoordinator.condition.broadcast() }
            SlotState.release(made)
            return false
        }
        let (dropped, type) = lifetime.slots.update(at: position) { slot -> (UnsafeMutableRawPointer?, Any.Type) in
            guard !slot.claimState.stale else { return (made, slot.original.serviceType) }
            defer { slot.bits = made }
            return (slot.bits, slot.original.serviceType)
        }
        if kind.needsTeardown {
            lifetime.owned.append(OwnedInstance(instance: erased(), kind: kind, name: TeardownName(type)))
        }
        let ended = lifetime.slots.update(at: position) { slot in state.map { slot.endClaim(of: $0) } ?? false }
        lock.unlock()
        if ended { BuildCoordinator.condition.broadcast() }
        SlotState.release(dropped)
        return true
    }
}
