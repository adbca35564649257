/// One run of ``Container/verificationReport(strict:)``: collects the registrations, their declared and
/// observed dependencies and what failed while building, then hands them to the analysis
/// (`Verification+Analysis.swift`), which turns them into problems.
final class Verification {
    let container: Container
    let strict: Bool
    /// The registrations visible from the container, one per registration (forwarded keys join their
    /// registration's node), sorted by label: the order of builds, and of everything reported.
    private(set) var nodes: [VerifiedNode] = []
    private var nodeOfKey: [ServiceKey: Int] = [:]
    private var nodeOfLabel: [String: Int] = [:]
    /// The dependencies found, before merging.
    private var found: [GraphRecorder.Edge] = []
    /// The missing dependencies found, in the order found.
    private(set) var missing: [MissingFinding] = []
    private var missingSeen: Set<MissingFinding.ID> = []
    /// The registrations that failed to build, with the error, in the order found.
    private(set) var failures: [(node: Int, error: any Error)] = []
    /// The cycles the engine reported while building, as paths of labels (the graph usually has them too).
    private(set) var reportedCycles: [[String]] = []
    private(set) var unchecked: [VerificationReport.UncheckedRegistration] = []

    init(container: Container, strict: Bool) {
        self.container = container
        self.strict = strict
        var groups: [ObjectIdentifier: (entry: _ServiceEntryBase, keys: [ServiceKey])] = [:]
        for (key, entry) in container.allRegistrations() {
            groups[ObjectIdentifier(entry), default: (entry, [])].keys.append(key)
        }
        nodes = groups.values.map { VerifiedNode(entry: $0.entry, keys: $0.keys) }
            .sorted { ($0.label, $0.id) < ($1.label, $1.id) }
        for (index, node) in nodes.enumerated() {
            for key in [node.key] + node.forwarded { nodeOfKey[key] = index }
            if nodeOfLabel[node.label] == nil { nodeOfLabel[node.label] = index }
        }
    }

    /// Collects everything, analyses it, and makes the report.
    func run() -> VerificationReport {
        addDeclaredDependencies()
        buildClosureRegistrations()
        let analysis = Analysis(self, edges: mergedEdges())
        return VerificationReport(
            problems: analysis.problems(),
            unchecked: unchecked.sorted { $0.service < $1.service },
            checkedCount: nodes.count - unchecked.count,
            strict: strict,
            graph: analysis.graph()
        )
    }

    /// The node of the registration for `key`, if there is one.
    func node(for key: ServiceKey) -> Int? {
        nodeOfKey[key]
    }

    /// The first node (in sorted order) that resolution paths write as `label`.
    func node(labelled label: String) -> Int? {
        nodeOfLabel[label]
    }

    // MARK: Autoregistered services

    /// Adds the dependencies autoregistered services declare, and the missing ones among them.
    private func addDeclaredDependencies() {
        for index in nodes.indices {
            guard let declared = nodes[index].declared else { continue }
            for dependency in declared {
                if let target = nodeOfKey[dependency.parameterKey] {
                    found.append(.init(from: index, to: .node(target), kind: .initializer, access: .direct))
                } else if dependency.access != .direct, let target = nodeOfKey[dependency.serviceKey] {
                    found.append(.init(from: index, to: .node(target), kind: .initializer, access: dependency.access))
                } else if dependency.serviceType != GraphIdentifier.self {
                    let key = dependency.serviceKey
                    found.append(.init(from: index, to: .missing(key), kind: .initializer, access: dependency.access))
                    if dependency.access != .optional {
                        addMissing(needer: index, key: key, suggestions: container.suggestions(for: key))
                    }
                }
            }
        }
    }

    // MARK: Closure registrations

    /// Builds every closure registration without runtime arguments in a throwaway copy of the container,
    /// recording what each resolves and what fails.
    private func buildClosureRegistrations() {
        let copy = container.makeVerificationCopy()
        var nodeOfEntry: [ObjectIdentifier: Int] = [:]
        for (index, node) in nodes.enumerated() {
            if let copied = copy.entries[ObjectIdentifier(node.entry)] { nodeOfEntry[ObjectIdentifier(copied)] = index }
        }
        // Built in a scope of the copy, so that `.scoped` services can be made.
        let scope = copy.container.makeScope()
        let recorder = GraphRecorder(
            nodeOfEntry: nodeOfEntry,
            containers: copy.containers.union([ObjectIdentifier(scope)])
        )
        // Property wrappers resolve from `Container.shared`: when that is the verified container, they must
        // resolve from the copy too.
        let sharesProperties = Container.shared === container
        for index in nodes.indices where nodes[index].declared == nil {
            let key = nodes[index].key
            guard key.argumentsType == noArguments else {
                let arguments = key.argumentTypeNames.joined(separator: ", ")
                unchecked.append(
                    .init(
                        service: key.requestDescription,
                        reason: "its factory takes runtime arguments (\(arguments)), which verification cannot make up"
                    )
                )
                continue
            }
            do {
                try recorder.record {
                    guard sharesProperties else { return try build(key, in: scope) }
                    try Container.withShared(scope) { try build(key, in: scope) }
                }
            } catch let error as ResolutionError {
                record(error, building: index, recorder: recorder)
            } catch {
                addFailure(node: index, error: error)
            }
        }
        // An autoregistered service's initializer edges are the ones it declares.
        found += recorder.edges.filter { nodes[$0.from].declared == nil || $0.kind != .initializer }
    }

    /// Resolves `key` in `container`, as `require` would.
    private func build(_ key: ServiceKey, in container: Container) throws {
        func make<Service>(_: Service.Type) throws {
            _ = try makeWithoutArguments(container, Service.self, name: key.name, option: key.option)
        }
        try make(key.serviceType)
    }

    /// Sorts a failed build's error into the findings.
    private func record(_ error: ResolutionError, building index: Int, recorder: GraphRecorder) {
        switch error.reason {
        case .missingRegistration:
            guard let key = error.key else { return addFailure(node: index, error: error) }
            let wanted = key.unwrapped
            var needer = index
            if let last = recorder.lastMissing, last.key == key || last.key == wanted {
                needer = last.needer
            } else if error.path.count >= 2, let asking = nodeOfLabel[error.path[error.path.count - 2]] {
                needer = asking
            }
            addMissing(needer: needer, key: wanted, suggestions: error.suggestions)
        case .circularDependency:
            reportedCycles.append(error.path)
        case .notOnMainActor:
            let own = error.key.flatMap { nodeOfKey[$0] } == index
            let reason =
                own
                ? "its factory is @MainActor, and verification ran off the main actor"
                : "it needs \(error.path.last ?? error.serviceType), whose factory is @MainActor, and verification "
                    + "ran off the main actor"
            unchecked.append(.init(service: nodes[index].key.requestDescription, reason: reason))
        case .requiresAsync:
            let own = error.key.flatMap { nodeOfKey[$0] } == index
            let reason =
                own
                ? "its factory is async, and verification builds synchronously"
                : "it needs \(error.path.last ?? error.serviceType), whose factory is async, and verification "
                    + "builds synchronously"
            unchecked.append(.init(service: nodes[index].key.requestDescription, reason: reason))
        case .outsideScope, .scopeEnded, .captiveDependency:
            // The dependency edge is recorded; the captive-dependency check reports it.
            break
        case .factoryFailed, .initCompletedFailed, .typeMismatch:
            addFailure(node: error.key.flatMap { nodeOfKey[$0] } ?? index, error: error)
        }
    }

    private func addMissing(needer: Int, key: ServiceKey, suggestions: [String]) {
        let finding = MissingFinding(needer: needer, key: key, suggestions: suggestions)
        if missingSeen.insert(finding.id).inserted { missing.append(finding) }
    }

    private func addFailure(node: Int, error: any Error) {
        guard !failures.contains(where: { $0.node == node }) else { return }
        failures.append((node, error))
    }

    /// The edges found, one per source, target and kind (the strongest access wins); a dependency on a
    /// missing service that no build missed was resolved optionally (`resolve` returned nil).
    private func mergedEdges() -> [GraphRecorder.Edge] {
        var strongest: [GraphRecorder.Edge: GraphRecorder.Edge] = [:]
        var order: [GraphRecorder.Edge] = []
        let needed = Set(missing.map(\.id))
        for var edge in found {
            if case .missing(let key) = edge.to, edge.access == .direct,
                !needed.contains(MissingFinding.ID(needer: edge.from, key: key))
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

/// Calls the pack-taking `make` with an empty pack (a pack parameter cannot be left out by name).
private func makeWithoutArguments<Service, each Argument>(
    _ container: Container,
    _ serviceType: Service.Type,
    name: String?,
    option: (any ServiceKeyOption)?,
    _ arguments: repeat each Argument
) throws -> Service {
    try container.make(serviceType, name: name, option: option, arguments: repeat each arguments)
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
        lifetime = Lifetime(scope)
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
    /// Registrations that might have been meant.
    let suggestions: [String]

    var id: ID { ID(needer: needer, key: key) }
}

extension ServiceKey {
    /// The key of the service inside a `Lazy`, `Provider` or `Optional`; the key itself otherwise.
    var unwrapped: ServiceKey {
        guard let wrapper = serviceType as? any InstanceWrapper.Type else { return self }
        return ServiceKey(serviceType: wrapper.wrappedType, argumentsType: argumentsType, name: name)
    }
}
