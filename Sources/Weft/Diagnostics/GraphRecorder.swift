/// Records which registration resolves which while verification builds services in its throwaway copy of a
/// container: the edges of closure registrations, which only running their factories reveals.
///
/// The verifying thread installs it in its ``ResolutionState`` (``record(_:)``) while it builds; the engine
/// calls it where a resolve starts (``resolving(_:state:)``), where a `Lazy`, `Provider` or `Optional` is
/// made (``resolvingWrapper(_:key:in:state:)``) and where a registration is found missing
/// (``missing(_:in:state:)``). The innermost frame of the resolution in flight is the registration that
/// asks: its factory (an initializer edge) or its `initCompleted` callbacks (an `initCompleted` edge). A
/// property wrapper marks the resolve it starts (``resolvingProperty(_:)``).
///
/// Only the thread that installed it calls it: the state it is installed in belongs to that thread.
final class GraphRecorder {
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

    /// The node of each registration of the copy.
    private let nodeOfEntry: [ObjectIdentifier: Int]
    /// The containers of the copy: resolves in other containers are not the verified container's.
    private let containers: Set<ObjectIdentifier>
    /// The edges seen so far, in the order first seen.
    private(set) var edges: [Edge] = []
    private var seen: Set<Edge> = []
    /// The last dependency found missing (the node that asked, the key it asked for).
    private(set) var lastMissing: (needer: Int, key: ServiceKey)?
    /// Set by a property wrapper for the resolve it is about to start.
    private var nextIsProperty = false
    /// Set when an `Optional` is made around a registration, for the resolve of the wrapped service.
    private var nextIsOptional = false

    /// The node of `entry`; a scope's copy of a `.scoped` registration is the registration's node.
    private func node(of entry: _ServiceEntryBase) -> Int? {
        nodeOfEntry[ObjectIdentifier(entry.scopeOriginal ?? entry)]
    }

    init(nodeOfEntry: [ObjectIdentifier: Int], containers: Set<ObjectIdentifier>) {
        self.nodeOfEntry = nodeOfEntry
        self.containers = containers
    }

    /// Runs `body` with this recorder installed on the calling thread.
    func record<T>(_ body: () throws -> T) rethrows -> T {
        let fields = ResolutionState.current.fields
        let outer = fields.pointee.graphRecorder
        fields.pointee.graphRecorder = self
        defer { fields.pointee.graphRecorder = outer }
        lastMissing = nil
        resetMarks()
        return try body()
    }

    /// A resolve of the registration `entry` starts.
    func resolving(_ entry: EntryReference, state: ResolutionState) {
        guard let child = node(of: entry.object) else {
            resetMarks()
            return
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
        guard containers.contains(ObjectIdentifier(container)) else {
            resetMarks()
            return
        }
        let access = (wrapper as? any DeclaredWrapper.Type)?.declaredAccess ?? .direct
        guard let entry = container.entry(for: key), let node = node(of: entry) else {
            if access != .optional, let needer = parentNode(state) { lastMissing = (needer, key) }
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
        guard containers.contains(ObjectIdentifier(container)), !(key.serviceType is any InstanceWrapper.Type) else {
            resetMarks()
            return
        }
        if let needer = parentNode(state) { lastMissing = (needer, key) }
        add(.missing(key), access: nextIsOptional ? .optional : .direct, state: state)
    }

    /// Runs `body`, a property wrapper's resolve, so that the edge it makes is a property edge.
    static func resolvingProperty<T>(_ body: () throws -> T) rethrows -> T {
        guard let recorder = ResolutionState.current.fields.pointee.graphRecorder else { return try body() }
        recorder.nextIsProperty = true
        defer { recorder.nextIsProperty = false }
        return try body()
    }

    /// The node whose factory or callbacks run on the innermost frame, if it is one of the copy's.
    private func parentNode(_ state: ResolutionState) -> Int? {
        guard let frame = state.frames.last else { return nil }
        return node(of: frame.entry.object)
    }

    private func add(_ target: Target, access: DependencyGraph.Edge.Access, state: ResolutionState) {
        let property = nextIsProperty
        resetMarks()
        guard let frame = state.frames.last, let from = node(of: frame.entry.object) else {
            return
        }
        let kind: DependencyGraph.Edge.Kind = property ? .property : (frame.inFactory ? .initializer : .initCompleted)
        let edge = Edge(from: from, to: target, kind: kind, access: access)
        if seen.insert(edge).inserted { edges.append(edge) }
    }

    private func resetMarks() {
        nextIsProperty = false
        nextIsOptional = false
    }
}
