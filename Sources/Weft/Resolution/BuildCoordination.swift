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
    /// An async resolve made the instance and is running its `initCompleted` callbacks: only that resolve's own
    /// graph may use it yet.
    case completingAsync
}

/// What ``_ServiceEntryBase/claimForTask(key:graph:)`` found: the claim of ``BuildClaim``, as a task sees it.
enum TaskClaim {
    /// A usable instance is stored.
    case stored(Any)
    /// Another task is building the instance: wait for `build`.
    case wait(AsyncBuild)
    /// The task now builds the instance with `build` and must end it with ``_ServiceEntryBase/endTaskBuild(_:)``.
    /// When `readStorageFirst`, the storage is a custom scope's, which is read only now that the claim is held
    /// (user code is never called under the registration's lock): a build that ended meanwhile stored there.
    case claimed(AsyncBuild, readStorageFirst: Bool)
}

/// Something one thread builds while others wait for it: a shared instance of a registration, or the
/// instance of a `Lazy`.
protocol BuildWaitTarget: AnyObject {
    /// The resolution (one per thread) building it right now, if any.
    var waitBuilder: ResolutionState? { get }
    /// Whether the builder has an instance to hand over before it is complete (a shared instance whose
    /// factory returned and whose `initCompleted` callbacks have not all run).
    var offersInstance: Bool { get }
}

/// The one place threads wait for each other's shared instances.
///
/// A thread waits only for the registration it needs. If waiting would close a cycle of threads
/// that wait for each other (two threads resolving the two ends of a circular dependency at once),
/// the thread takes the instance the other thread has already made instead of waiting; if no thread on
/// the cycle has an instance to offer, the cycle runs through factories and is reported as a
/// circular dependency, with the path of every thread on it.
enum BuildCoordinator {
    static let condition = Condition()

    /// Waits while another thread builds `target`; throws when waiting would close a cycle of waiting threads
    /// that no instance on it can break. Returns as soon as `target` has no builder (or its builder is `state`).
    static func waitWhileBuilt(_ target: any BuildWaitTarget, key: ServiceKey, state: ResolutionState) throws {
        _ = try waitForBuilder(of: target, key: key, state: state) { nil }
    }
}

/// Thrown by the synchronous engine, instead of blocking, when another thread is building the instance that
/// async code asked for directly (a shared instance, or a graph-scoped one of the task's async graph): the async
/// caller suspends until that build ends, then asks again (a task never blocks a cooperative thread waiting for
/// another thread's factory).
struct BuildInProgress: Error {
    let target: any BuildWaitTarget & Sendable
}

extension BuildCoordinator {
    /// Suspends the calling task until nobody builds `target`; throws `CancellationError` when the task is
    /// cancelled first. A waiting task holds nothing another build needs, so it closes no cycle of waits.
    static func suspendWhileBuilt(_ target: any BuildWaitTarget) async throws {
        while target.waitBuilder != nil {
            guard await condition.suspend(while: { target.waitBuilder != nil }) else { throw CancellationError() }
        }
    }

    /// Waits until nobody else builds `target`; returns `offered()`, an instance the builder has made already, instead
    /// when waiting would close a cycle of waiting threads, and throws when no thread on that cycle has an instance to
    /// offer. Nil once the build ended: the caller looks again.
    static func waitForBuilder(
        of target: any BuildWaitTarget,
        key: ServiceKey,
        state: ResolutionState,
        offered: () -> Any?
    ) throws -> Any? {
        let path = state.path + [key.pathComponent]
        return try condition.withWaitingLock {
            defer { state.waitingFor = nil }
            while true {
                guard let owner = target.waitBuilder, owner !== state else { return nil }
                if let cycle = waitCycle(from: state, owner: owner) {
                    if let instance = offered() { return instance }
                    if !cycle.contains(where: \.offersInstance) {
                        throw cycleError(key: key, path: path, cycle: cycle)
                    }
                }
                state.waitingFor = target
                state.waitingPath = path
                condition.broadcastLocked()
                condition.wait()
            }
        }
    }
}

/// The build of a graph-scoped instance in one graph, which that graph's threads wait for (see
/// ``BuildClaimState``): whoever holds the registration's claim for another graph meanwhile.
final class GraphBuildTarget: BuildWaitTarget, Sendable {
    let entry: _ServiceEntryBase
    let graph: GraphIdentifier

    init(entry: _ServiceEntryBase, graph: GraphIdentifier) {
        self.entry = entry
        self.graph = graph
    }

    var waitBuilder: ResolutionState? { entry.builder(inGraph: graph) }
    var offersInstance: Bool { waitBuilder != nil && entry.instanceOfBuilder(inGraph: graph) != nil }
}

extension _ServiceEntryBase: BuildWaitTarget {
    var waitBuilder: ResolutionState? { builder?.state }
    var offersInstance: Bool {
        guard let builder else { return false }
        return instanceOfBuilder(inGraph: builder.graph) != nil
    }
}

extension Container {
    /// Returns the stored instance `holder` keeps, or `nil` when the caller must build it (having claimed it
    /// if `coordinated`).
    func acquire(
        _ holder: any InstanceHolder,
        key: ServiceKey,
        state: ResolutionState,
        graph: GraphIdentifier,
        policy: SharingPolicy,
        coordinated: Bool
    ) throws -> (instance: Any?, claimed: Bool) {
        while true {
            switch holder.claim(by: state, graph: graph, policy: policy, coordinated: coordinated) {
            case .stored(let instance):
                return (instance, false)
            case .claimed:
                state.claims.append(holder)
                return (nil, true)
            case .free:
                return (nil, false)
            case .completingAsync:
                throw ResolutionError(
                    reason: .requiresAsync,
                    key: key,
                    path: state.path + [key.pathComponent],
                    asyncInFlight: true
                )
            case .busy:
                // A graph's instance is waited for only by resolves in that graph: one in another graph claims its
                // own graph's build, as graphs share nothing (a `synchronize()`d container still runs one factory at
                // a time, unless only other graphs' builds hold the instance: there is no one else to wait for).
                if policy == .perGraph, !synchronized || holder.builder == nil {
                    if let claimed = try claimInGraph(holder.registration, key: key, state: state, graph: graph) {
                        return claimed
                    }
                    continue
                }
                // Asked for directly by async code: it suspends (see ``BuildCoordinator/suspendWhileBuilt(_:)``)
                // rather than blocking its thread here. Nothing has been made in this resolve yet.
                if state.suspendsForBuildOf == ObjectIdentifier(holder.registration), state.frames.isEmpty {
                    throw BuildInProgress(target: holder)
                }
                let offered = { holder.builder.flatMap { holder.instanceOfBuilder(inGraph: $0.graph) } }
                if let adopted = try BuildCoordinator.waitForBuilder(
                    of: holder, key: key, state: state, offered: offered)
                {
                    state.adopted.append(holder)
                    return (adopted, false)
                }
            }
        }
    }

    /// ``acquire(_:key:state:graph:policy:coordinated:)`` for a graph-scoped instance whose claim a build is
    /// holding: the instance stored for `graph`, or the claim of `graph`'s build; nil once the thread building in
    /// `graph` has ended its build, for the caller to look again.
    func claimInGraph(
        _ entry: _ServiceEntryBase,
        key: ServiceKey,
        state: ResolutionState,
        graph: GraphIdentifier
    ) throws -> (instance: Any?, claimed: Bool)? {
        switch entry.claim(inGraph: graph, by: state) {
        case .stored(let instance):
            return (instance, false)
        case .claimed:
            state.claims.append(entry)
            return (nil, true)
        case .busy:
            let target = GraphBuildTarget(entry: entry, graph: graph)
            if state.suspendsForBuildOf == ObjectIdentifier(entry), state.frames.isEmpty {
                throw BuildInProgress(target: target)
            }
            let offered = { entry.instanceOfBuilder(inGraph: graph) }
            if let adopted = try BuildCoordinator.waitForBuilder(of: target, key: key, state: state, offered: offered) {
                state.adopted.append(entry)
                return (adopted, false)
            }
            return nil
        case .free, .completingAsync:
            return (nil, false)
        }
    }

    /// Releases every claim `state` still holds. When the resolve `failed`, a scope's instance whose claim is
    /// still held (its callbacks did not all run) is discarded, as a registration's is (see `completeGraph`).
    func releaseClaims(of state: ResolutionState, failed: Bool = false) {
        for holder in state.claims.removeAll() {
            if failed, let slot = holder as? ScopeSlot, slot.builder?.state === state { slot.discard() }
            holder.releaseClaim(by: state)
        }
    }

    /// Releases the claim on `holder` (the build failed, or its instance is complete).
    func releaseClaim(on holder: any InstanceHolder, state: ResolutionState) {
        state.claims.remove(holder)
        holder.releaseClaim(by: state)
    }

    /// Releases the claim on `holder`, whose instance is complete, unless another instance this resolve made still
    /// waits for its `initCompleted` callbacks: `holder`'s instance may hold that one (a parent made in its child's
    /// callback holds the child), and another thread handed it would reach an instance still being completed. The
    /// claim is then kept, out of ``ResolutionState/Fields/claims`` (a failure elsewhere does not discard a complete
    /// instance), until the last of those callbacks ran (see ``runPendingCompletions(_:from:)``) or the graph ends.
    func releaseCompletedClaim(on holder: any InstanceHolder, state: ResolutionState) {
        let fields = state.fields
        guard fields.pointee.completing > 0 else { return releaseClaim(on: holder, state: state) }
        fields.pointee.claims.remove(holder)
        fields.pointee.deferredClaims.append(holder)
    }

    /// Releases the claims ``releaseCompletedClaim(on:state:)`` kept. Taken out first: a release may run a deinit
    /// that resolves on this thread.
    func releaseDeferredClaims(of state: ResolutionState) {
        let fields = state.fields
        var held: [any InstanceHolder] = []
        swap(&held, &fields.pointee.deferredClaims)
        for holder in held { holder.releaseClaim(by: state) }
    }

    /// Waits until the instances taken from other threads to break a wait cycle are complete, so that
    /// nothing is handed back before its `initCompleted` callbacks have run.
    func waitForAdoptedInstances(of state: ResolutionState) {
        guard !state.adopted.isEmpty else { return }
        let adopted = state.adopted
        state.adopted.removeAll(keepingCapacity: true)
        let condition = BuildCoordinator.condition
        condition.withWaitingLock {
            for entry in adopted {
                while let owner = entry.builder, owner.state !== state {
                    condition.wait()
                }
            }
        }
    }
}
