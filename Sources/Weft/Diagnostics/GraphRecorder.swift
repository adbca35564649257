/// Records which registration resolves which while verification builds services in its throwaway copy of a
/// container: the edges of closure registrations, which only running their factories reveals.
///
/// A recorder is installed in a thread's ``ResolutionState`` (``record(_:)``) while a synchronous build runs
/// there; the engine calls it where a resolve starts (``resolving(_:state:)``), where a `Lazy`, `Provider` or
/// `Optional` is made (``resolvingWrapper(_:key:in:state:)``) and where a registration is found missing
/// (``missing(_:in:state:)``). The innermost frame of the resolution in flight is the registration that
/// asks: its factory (an initializer edge) or its `initCompleted` callbacks (an `initCompleted` edge). A
/// property wrapper marks the resolve it starts (``resolvingProperty(_:)``).
///
/// What is recorded goes to the verification's ``Findings``, which the recorders of an async verification
/// share: there, each synchronous part of an async build gets a recorder of its own (``Origin`` says whose
/// async factory started it), and the async engine adds the edges between async factories itself
/// (``Findings/resolving(_:from:)``).
///
/// Only the thread that installed a recorder calls it: the state it is installed in belongs to that thread.
@usableFromInline final class GraphRecorder {
    /// What an edge points at: a registration of the copy, or a key nothing is registered under.
    enum Target: Hashable {
        case node(Int)
        case missing(ServiceKey)
    }

    /// A dependency seen while building.
    struct Edge: Hashable {
        let from: Int
        let to: Target
        let kind: DependencyGraph.Edge.Kind
        let access: DependencyGraph.Edge.Access
    }

    /// Synchronous code of the registration at `asker` resolved the registration at `needed`, whose factory is
    /// async.
    struct SynchronousUse: Equatable {
        let asker: Int
        let needed: Int
        /// Whether the asker's factory resolved it, rather than its `initCompleted` callbacks.
        let inFactory: Bool
    }

    /// The registration whose async factory (or `initCompleted` callbacks) started a synchronous part of an
    /// async build: what asks when no synchronous frame is in flight.
    struct Origin {
        let entry: _ServiceEntryBase
        let inFactory: Bool
    }

    /// The edges and the last missing dependency one verification found, from any thread.
    final class Findings: @unchecked Sendable {
        /// The node of each registration of the copy.
        private let nodeOfEntry: [ObjectIdentifier: Int]
        /// The containers of the copy: resolves in other containers are not the verified container's.
        private let containers: Set<ObjectIdentifier>
        private let lock = Lock()
        private var found: [Edge] = []
        private var seen: Set<Edge> = []
        private var missing: MissedRequest?
        private var synchronous: [SynchronousUse] = []
        /// An instance of each transient or graph-scoped registration (of the copy) whose build completed
        /// (see ``complete(_:instance:)``).
        private var completed: [ObjectIdentifier: Any] = [:]
        /// The nodes a build settled: completed, or failed as their own build would (see ``settleFailures(like:)``).
        private var settled: Set<Int> = []
        /// The registrations whose builds failed during the current build, with the failure.
        private var failedInBuild: [(entry: _ServiceEntryBase, error: ResolutionError)] = []

        init(nodeOfEntry: [ObjectIdentifier: Int], containers: Set<ObjectIdentifier>) {
            self.nodeOfEntry = nodeOfEntry
            self.containers = containers
        }

        /// Whether `container` is one of the copy's containers or a scope of one.
        func isCopy(_ container: Container) -> Bool {
            if containers.contains(ObjectIdentifier(container)) { return true }
            guard container.isScope, let parent = container.parent else { return false }
            return containers.contains(ObjectIdentifier(parent))
        }

        /// The edges seen so far, in the order first seen.
        var edges: [Edge] { lock.withLock { found } }

        /// The last dependency found missing (the node that asked, the key it asked for); set back to nil
        /// before each build.
        var lastMissing: MissedRequest? {
            get { lock.withLock { missing } }
            set { lock.withLock { missing = newValue } }
        }

        /// Where synchronous code (a factory or `initCompleted` callbacks) resolved a registration whose factory
        /// is async, in the order first seen: that works only while an instance made before is kept.
        var synchronousUses: [SynchronousUse] { lock.withLock { synchronous } }

        func noteSynchronousUse(_ use: SynchronousUse) {
            lock.withLock {
                if !synchronous.contains(use) { synchronous.append(use) }
            }
        }

        /// The node of `entry`.
        func node(of entry: _ServiceEntryBase) -> Int? {
            nodeOfEntry[ObjectIdentifier(entry)]
        }

        /// Notes that a build of `entry` (a transient or graph-scoped registration without `initCompleted`
        /// callbacks) completed with `instance`: every edge of its factory is recorded, so a later resolve of it
        /// in any build is answered with `instance` instead of running the factory again, and it is not built
        /// on its own. Without this, verifying a chain builds every suffix of it: quadratic. An instance with a
        /// teardown is not kept: its build's scope tears it down.
        func complete(_ entry: _ServiceEntryBase, instance: Any) {
            guard !(instance is any Teardown), !(instance is any AsyncTeardown) else { return }
            lock.withLock {
                guard completed[ObjectIdentifier(entry)] == nil else { return }
                completed[ObjectIdentifier(entry)] = instance
                if let node = node(of: entry) { settled.insert(node) }
            }
        }

        /// The instance a completed build of `entry` made (see ``complete(_:instance:)``), if any.
        func completedInstance(of entry: _ServiceEntryBase) -> Any? {
            lock.withLock { completed[ObjectIdentifier(entry)] }
        }

        /// Notes that resolving `entry` failed with `error` during the current build.
        func failed(_ entry: _ServiceEntryBase, with error: ResolutionError) {
            lock.withLock { failedInBuild.append((entry, error)) }
        }

        /// Ends a build that failed with `error` (nil when it succeeded): the registrations that passed that same
        /// failure up are settled, when the failure does not depend on where the build started (a missing
        /// registration, a factory or callback that threw, an out-of-scope dependency; not a cycle, whose path
        /// starts at the build, not a captive dependency, refused only for the shared instance being made, not an
        /// async or main-actor factory, reported for the build, and not the stack running out). Their own builds would fail alike and report nothing more; a registration
        /// that swallowed a failure (an optional resolve) and failed otherwise, or did not fail, is not. A failure
        /// the build passed up has the build's path: one swallowed, then met again on another path, is not it.
        func settleFailures(like error: ResolutionError?) {
            lock.withLock {
                defer { failedInBuild.removeAll() }
                guard let error else { return }
                switch error.reason {
                case .missingRegistration, .factoryFailed, .initCompletedFailed, .typeMismatch, .outsideScope,
                    .scopeEnded:
                    break
                case .circularDependency, .captiveDependency, .notOnMainActor, .requiresAsync, .tooDeep:
                    return
                }
                for failure in failedInBuild
                where failure.error.key == error.key && failure.error.reason == error.reason
                    && failure.error.path == error.path
                {
                    if let node = node(of: failure.entry) { settled.insert(node) }
                }
            }
        }

        /// Whether a build that resolved the registration at `node` settled it already.
        func isSettled(node: Int) -> Bool {
            lock.withLock { settled.contains(node) }
        }

        func add(_ edge: Edge) {
            lock.withLock {
                if seen.insert(edge).inserted { found.append(edge) }
            }
        }

        /// The async factory of `asker` resolves the registration `entry`, whose factory is async too.
        func resolving(_ entry: _ServiceEntryBase, from asker: _ServiceEntryBase) {
            guard let from = node(of: asker), let to = node(of: entry) else { return }
            add(Edge(from: from, to: .node(to), kind: .initializer, access: .direct))
        }
    }

    let findings: Findings
    /// What asks when no synchronous frame is in flight; nil in a synchronous verification.
    private let origin: Origin?
    /// Set by a property wrapper for the resolve it is about to start.
    private var nextIsProperty = false
    /// Set when an `Optional` is made around a registration, for the resolve of the wrapped service.
    private var nextIsOptional = false

    init(findings: Findings, origin: Origin? = nil) {
        self.findings = findings
        self.origin = origin
    }

    /// Runs `body` with this recorder installed on the calling thread.
    func record<T>(_ body: () throws -> T) rethrows -> T {
        let fields = ResolutionState.current.fields
        let outer = fields.pointee.graphRecorder
        fields.pointee.graphRecorder = self
        defer { fields.pointee.graphRecorder = outer }
        resetMarks()
        return try body()
    }

    /// A resolve of the registration `entry` starts.
    func resolving(_ entry: EntryReference, state: ResolutionState) {
        guard let child = findings.node(of: entry.object) else {
            resetMarks()
            return
        }
        // The synchronous engine runs only synchronous code: factories, callbacks, or the caller's resolve.
        // A collection has an async factory for async resolves; synchronously, its elements' factories tell.
        if entry.object.asyncFactory != nil, !entry.object.isCollection, let (asker, inFactory) = asker(state) {
            findings.noteSynchronousUse(SynchronousUse(asker: asker, needed: child, inFactory: inFactory))
        }
        add(.node(child), access: nextIsOptional ? .optional : .direct, state: state)
    }

    /// A `Lazy`, `Provider` or `Optional` around the registration for `key` is being made in `container`.
    func resolvingWrapper(
        _ wrapper: any InstanceWrapper.Type,
        key: ServiceKey,
        in container: Container,
        state: ResolutionState
    ) {
        guard findings.isCopy(container) else {
            resetMarks()
            return
        }
        let access = (wrapper as? any DeclaredWrapper.Type)?.declaredAccess ?? .direct
        guard let entry = container.entry(for: key), let node = findings.node(of: entry) else {
            if access != .optional { noteMissing(key, access: access, state: state) }
            add(.missing(key), access: access, state: state)
            return
        }
        if access == .optional {
            // The optional's instance is resolved right away: that resolve records the edge.
            nextIsOptional = true
            return
        }
        add(.node(node), access: access, state: state)
    }

    /// Nothing is registered for `key` in `container`.
    func missing(_ key: ServiceKey, in container: Container, state: ResolutionState) {
        // A wrapper around a missing service was recorded by `resolvingWrapper`.
        guard findings.isCopy(container),
            !(key.serviceType is any InstanceWrapper.Type)
        else {
            resetMarks()
            return
        }
        noteMissing(key, access: nextIsOptional ? .optional : .direct, state: state)
        add(.missing(key), access: nextIsOptional ? .optional : .direct, state: state)
    }

    /// Notes the request of the missing `key` for the failure it may cause (see ``Findings/lastMissing``).
    private func noteMissing(_ key: ServiceKey, access: DependencyGraph.Edge.Access, state: ResolutionState) {
        guard let (needer, inFactory) = asker(state) else { return }
        let kind: DependencyGraph.Edge.Kind = nextIsProperty ? .property : (inFactory ? .initializer : .initCompleted)
        findings.lastMissing = MissedRequest(needer: needer, key: key, kind: kind, access: access)
    }

    /// Runs `body`, a property wrapper's resolve, so that the edge it makes is a property edge.
    static func resolvingProperty<T>(_ body: () throws -> T) rethrows -> T {
        guard let recorder = ResolutionState.current.fields.pointee.graphRecorder else { return try body() }
        recorder.nextIsProperty = true
        defer { recorder.nextIsProperty = false }
        return try body()
    }

    /// The node that asks, if it is one of the copy's: the registration whose factory or callbacks run on the
    /// innermost frame, or else the async factory that started this synchronous part.
    private func asker(_ state: ResolutionState) -> (node: Int, inFactory: Bool)? {
        if let frame = state.frames.last {
            return findings.node(of: frame.entry.object).map { ($0, frame.inFactory) }
        }
        guard let origin else { return nil }
        return findings.node(of: origin.entry).map { ($0, origin.inFactory) }
    }

    private func add(_ target: Target, access: DependencyGraph.Edge.Access, state: ResolutionState) {
        let property = nextIsProperty
        resetMarks()
        guard let (from, inFactory) = asker(state) else { return }
        let kind: DependencyGraph.Edge.Kind = property ? .property : (inFactory ? .initializer : .initCompleted)
        findings.add(Edge(from: from, to: target, kind: kind, access: access))
    }

    private func resetMarks() {
        nextIsProperty = false
        nextIsOptional = false
    }
}
