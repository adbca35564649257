/// How a registration's scope shares its instances, which decides how resolutions coordinate.
enum SharingPolicy {
    /// A new instance every time: nothing to look up or coordinate.
    case transient
    /// One instance per graph (`.graph`): graphs on different threads never share, so they never wait.
    case perGraph
    /// Instances shared across graphs (`.container`, `.weak`, custom scopes): built once, with other
    /// threads waiting until the builder has finished the instance.
    case shared
    /// A `.scoped` registration asked for where no scope is: it cannot be made (a scope makes and uses its
    /// own copy of the registration, whose policy is ``shared``).
    case perScope
}

/// What ``ServiceEntryProtocol/claim(by:graph:policy:coordinated:)`` found.
enum BuildClaim {
    /// A usable instance is stored.
    case stored(Any)
    /// The caller now builds the instance and must release the claim when it is complete.
    case claimed
    /// The caller builds the instance without a claim (no coordination needed, or it already holds one).
    case free
    /// Another resolution is building the instance.
    case busy
}

/// The one place threads wait for each other's shared instances.
///
/// A thread waits only for the registration it needs. If waiting would close a cycle of threads
/// that wait for each other (two threads resolving the two ends of a circular dependency at once),
/// the thread takes the instance the other thread has already made instead of waiting; if no thread on
/// the cycle has an instance to offer, the cycle runs through factories and is reported as a
/// circular dependency.
enum BuildCoordinator {
    static let condition = Condition()
}

extension Container {
    /// Returns the stored instance of `entry`, or `nil` when the caller must build it (having claimed it
    /// if `coordinated`).
    func acquire(
        _ entry: _ServiceEntryBase,
        key: ServiceKey,
        state: ResolutionState,
        graph: GraphIdentifier,
        policy: SharingPolicy,
        coordinated: Bool
    ) throws -> (instance: Any?, claimed: Bool) {
        while true {
            switch entry.claim(by: state, graph: graph, policy: policy, coordinated: coordinated) {
            case .stored(let instance):
                return (instance, false)
            case .claimed:
                state.claims.append(entry)
                return (nil, true)
            case .free:
                return (nil, false)
            case .busy:
                if let adopted = try waitForBuilder(of: entry, key: key, state: state) {
                    state.adopted.append(entry)
                    return (adopted, false)
                }
            }
        }
    }

    /// Waits until nobody else builds `entry`; returns another thread's instance instead when waiting
    /// would deadlock.
    private func waitForBuilder(
        of entry: _ServiceEntryBase,
        key: ServiceKey,
        state: ResolutionState
    ) throws -> Any? {
        let condition = BuildCoordinator.condition
        return try condition.withLock {
            defer { state.waitingFor = nil }
            while true {
                guard let owner = entry.builder, owner.state !== state else { return nil }
                if let cycle = waitCycle(from: state, owner: owner.state) {
                    if let instance = entry.storedInstance(inGraph: owner.graph) { return instance }
                    if !cycle.contains(where: { $0.offersInstance }) {
                        throw ResolutionError(
                            reason: .circularDependency,
                            key: key,
                            path: state.path + [key.pathComponent]
                        )
                    }
                }
                state.waitingFor = entry
                condition.broadcastLocked()
                condition.wait()
            }
        }
    }

    /// The waits that lead from `owner` back to `state`, if they do (under the coordinator's lock).
    private func waitCycle(
        from state: ResolutionState,
        owner: ResolutionState
    ) -> [(entry: _ServiceEntryBase, offersInstance: Bool)]? {
        var current = owner
        var cycle: [(entry: _ServiceEntryBase, offersInstance: Bool)] = []
        for _ in 0..<1024 {
            guard let wanted = current.waitingFor, let next = wanted.builder else { return nil }
            cycle.append((wanted, wanted.storedInstance(inGraph: next.graph) != nil))
            if next.state === state { return cycle }
            current = next.state
        }
        return nil
    }

    /// Releases every claim `state` still holds.
    func releaseClaims(of state: ResolutionState) {
        let claims = state.claims
        state.claims.removeAll(keepingCapacity: true)
        for entry in claims {
            entry.releaseClaim(by: state)
        }
    }

    /// Releases the claim on `entry` now that its instance is complete.
    func releaseClaim(on entry: _ServiceEntryBase, state: ResolutionState) {
        if let index = state.claims.lastIndex(where: { $0 === entry }) {
            state.claims.remove(at: index)
        }
        entry.releaseClaim(by: state)
    }

    /// Waits until the instances taken from other threads to break a wait cycle are complete, so that
    /// nothing is handed back before its `initCompleted` callbacks have run.
    func waitForAdoptedInstances(of state: ResolutionState) {
        guard !state.adopted.isEmpty else { return }
        let adopted = state.adopted
        state.adopted.removeAll(keepingCapacity: true)
        let condition = BuildCoordinator.condition
        condition.withLock {
            for entry in adopted {
                while let owner = entry.builder, owner.state !== state {
                    condition.wait()
                }
            }
        }
    }
}
