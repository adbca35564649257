/// What a verification run finds, before analysis: a node per registration, a missing dependency, and the
/// dependency edges merged from what every build recorded.
extension Verification {
    /// The edges found, one per source, target and kind (the strongest access wins); a direct dependency on a
    /// missing service that no build missed so, from the same source and kind, was resolved optionally (`resolve`
    /// returned nil), also where the same service missed otherwise (through a `Lazy`, or in a callback).
    func mergedEdges() -> [GraphRecorder.Edge] {
        var strongest: [GraphRecorder.Edge: GraphRecorder.Edge] = [:]
        var order: [GraphRecorder.Edge] = []
        for var edge in found {
            if case .missing(let key) = edge.to, edge.access == .direct,
                !missedRequests.contains(
                    MissedRequest(needer: edge.from, key: key, kind: edge.kind, access: .direct)),
                !missedRequests.contains(MissedRequest(needer: edge.from, key: key, kind: nil, access: nil))
            {
                edge = .init(from: edge.from, to: edge.to, kind: edge.kind, access: .optional)
            }
            let slot = GraphRecorder.Edge(from: edge.from, to: edge.to, kind: edge.kind, access: .direct)
            if let existing = strongest[slot] {
                if edge.access.rank < existing.access.rank { strongest[slot] = edge }
            } else {
                strongest[slot] = edge
                order.append(slot)
            }
        }
        return order.compactMap { strongest[$0] }
    }
}

/// A registration of the verified container (with the keys forwarded to it): a node of the graph.
struct VerifiedNode {
    /// The key the registration was made under (or, failing that, the first in sorted order).
    let key: ServiceKey
    /// The other keys that resolve through the same registration.
    let forwarded: [ServiceKey]
    let entry: _ServiceEntryBase
    let lifetime: Lifetime
    /// The scope's description: `container`, `graph`, or a custom scope's.
    let scopeName: String

    init(entry: _ServiceEntryBase, keys: [ServiceKey]) {
        let sorted = keys.sorted {
            ($0.serviceType == entry.serviceType ? 0 : 1, $0.requestDescription)
                < ($1.serviceType == entry.serviceType ? 0 : 1, $1.requestDescription)
        }
        key = sorted[0]
        forwarded = Array(sorted.dropFirst())
        self.entry = entry
        let scope = entry.objectScope
        lifetime = ScopeBehavior.of(scope).lifetime
        scopeName = String(describing: scope)
    }

    /// The node as paths write it.
    var label: String { key.pathComponent }
    /// Tells apart nodes of the same label.
    var id: String { DependencyGraph.Node.identifier(of: key) }
    /// The dependencies of an autoregistered service; nil for a closure registration.
    var declared: [DeclaredDependency]? { entry.declaredDependencies }
}

/// A missing dependency: the node that needs it and the key it asks for.
struct MissingFinding {
    struct ID: Hashable {
        let needer: Int
        let key: ServiceKey
    }

    let needer: Int
    let key: ServiceKey
    /// The path from the needer's request to the missing service, as the resolution error wrote it: the
    /// missing service, after the `Lazy` or `Provider` asked for around it, if any.
    let request: [String]
    /// Registrations that might have been meant.
    let suggestions: [String]

    var id: ID { ID(needer: needer, key: key) }
}

/// A request of a missing dependency: the node whose factory, callback or property asked, the key it asked for,
/// and how (nil when a failure does not tell).
struct MissedRequest: Hashable {
    let needer: Int
    let key: ServiceKey
    let kind: DependencyGraph.Edge.Kind?
    let access: DependencyGraph.Edge.Access?
}

extension ServiceKey {
    /// The key of the service inside a `Lazy`, `Provider` or `Optional`; the key itself otherwise.
    var unwrapped: ServiceKey {
        guard let wrapper = serviceType as? any InstanceWrapper.Type else { return self }
        return ServiceKey(serviceType: wrapper.wrappedType, argumentsType: argumentsType, name: name)
    }
}

/// The instances verification's builds made that adopt ``Teardown`` or ``AsyncTeardown`` in a scope that never tears
/// them down: noted as findings, and torn down by the build's scope so that verification leaves nothing open.
extension Verification {
    /// Notes the registration at `index` when its instances adopt ``Teardown`` or ``AsyncTeardown`` but its
    /// scope never tears them down: `instance` is one it built, when it could be built.
    ///
    /// - Returns: Whether `instance` is such an instance, which verification hands to the build's scope to tear down.
    @discardableResult
    func noteTeardown(of index: Int, instance: Any?) -> Bool {
        let node = nodes[index]
        guard node.lifetime != .container, node.lifetime != .scoped else { return false }
        let type = node.entry.serviceType
        let adopted: String
        if type is any Teardown.Type || instance is any Teardown {
            adopted = "Teardown"
        } else if type is any AsyncTeardown.Type || instance is any AsyncTeardown {
            adopted = "AsyncTeardown"
        } else {
            return false
        }
        if !neverTornDown.contains(where: { $0.node == index }) { neverTornDown.append((index, adopted)) }
        return instance is any Teardown || instance is any AsyncTeardown
    }

    /// Hands `instance`, which the build of the registration at `index` made and whose scope never tears it
    /// down, to the build's scope, which tears it down when it ends: verification leaves open nothing its
    /// builds opened.
    func adoptLost(_ instance: Any?, of index: Int, into scope: Container) {
        guard let instance else { return }
        let name = TeardownName(nodes[index].entry.serviceType)
        scope.adoptForTeardown(OwnedInstance(finding: instance, name: name))
    }
}
