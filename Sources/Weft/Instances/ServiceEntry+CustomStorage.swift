/// A registration whose scope is a custom one: its storage is user code, called through the storage's gate with
/// the registration's lock let go (see ``GatedStorage``). The registration decides under its lock (who builds,
/// whether an instance is stale) and calls the storage after; where the two steps could be overtaken by another
/// thread, the storage is read again.
extension ServiceEntry {
    /// Whether this registration's storage is a custom scope's, called through its gate; read under the lock.
    var usesGate: Bool { !configuration.behavior.isBuiltIn }

    /// The custom scope's storage, made on first need with the lock let go, since making it runs the scope
    /// object's code. When threads race to make it, one storage is kept; the lock is not held on return.
    func madeGatedStorage() -> GatedStorage {
        while true {
            lock.lock()
            if let gatedStorage = slot.gatedStorage {
                lock.unlock()
                return gatedStorage
            }
            let scope = configuration.scope
            lock.unlock()
            let made = GatedStorage(scope.makeStorage())
            lock.lock()
            // Kept unless another thread made one first or the scope changed meanwhile (then made again).
            if slot.gatedStorage == nil, configuration.scope === scope { slot.gatedStorage = made }
            lock.unlock()
        }
    }

    /// ``claim(by:graph:policy:coordinated:)`` for a custom scope (whose policy is always shared).
    func claimThroughGate(by state: ResolutionState, graph: GraphIdentifier, coordinated: Bool) -> BuildClaim {
        let gated = madeGatedStorage()
        while true {
            lock.lock()
            if !slot.buildClaim.admits(state) {
                let (byTask, lends, refusal) = (
                    slot.buildClaim.isHeldByTask, slot.buildClaim.lendsTaskInstance(to: graph),
                    slot.buildClaim.refusalWhileTaskHolds
                )
                lock.unlock()
                guard byTask else { return .busy }
                // As `claim(by:graph:policy:coordinated:)` decides, with the storage read after the lock.
                if lends, let stored = gated.instance(inGraph: graph) { return .stored(stored) }
                return refusal
            }
            lock.unlock()
            if let stored = gated.instance(inGraph: graph) { return .stored(stored) }
            guard coordinated else { return .free }
            lock.lock()
            if slot.buildClaim.isHeld {
                let mine = slot.buildClaim.admits(state)
                lock.unlock()
                // Held by this resolution already, or taken by another since the decision above: decided anew.
                if mine { return .free }
                continue
            }
            slot.buildClaim.take(by: state, graph: graph)
            lock.unlock()
            // Another build may have stored its instance and let go of its claim between the read and the claim.
            if let stored = gated.instance(inGraph: graph) {
                releaseClaim(by: state)
                return .stored(stored)
            }
            return .claimed
        }
    }

    /// Stores `instance` (nil: clears) for `graph` in the custom scope's storage, unless it was made with
    /// something discarded meanwhile. Whether it is stale is read inside the gate: a discard marks the build
    /// stale under the lock and empties the storage through the gate after, so either this store sees the mark
    /// or the discard empties the storage after this store.
    func storeThroughGate(_ instance: Any?, inGraph graph: GraphIdentifier) {
        let gated = madeGatedStorage()
        var replaced: OfferedInstance?
        gated.withStorage { storage in
            lock.lock()
            let stale: Bool
            (stale, replaced) = slot.offer(instance, inGraph: graph)
            lock.unlock()
            if instance == nil || !stale { storage.setInstance(instance, inGraph: graph) }
        }
        // Released outside the gate and the lock: a deinit may call back into the container.
        withExtendedLifetime(replaced) {}
    }

    /// See ``_ServiceEntryBase/instanceOfBuilder(inGraph:)``.
    func offeredByBuilder(inGraph graph: GraphIdentifier) -> Any? {
        lock.lock()
        if usesGate {
            defer { lock.unlock() }
            return slot.offered(inGraph: graph)
        }
        lock.unlock()
        return storedInstance(inGraph: graph)
    }
}
