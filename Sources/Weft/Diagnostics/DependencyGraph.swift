/// The dependency graph of a container: its registrations, with their scopes, and which of them uses which.
///
/// ```swift
/// let graph = container.dependencyGraph()
/// print(graph.dot)       // Graphviz: `swift run app-graph | dot -Tsvg > graph.svg`
/// print(graph.mermaid)   // paste into a Markdown file that renders Mermaid
/// ```
///
/// Edges come from two places. An autoregistered service's edges are its initializer's parameters, known
/// without building it (see ``Container/autoregister(_:name:initializer:)``). A closure registration's
/// edges are what its factory, its `initCompleted` callbacks and the property wrappers of what it makes
/// resolved while ``Container/verificationReport(strict:)`` built it in a throwaway copy of the container.
/// A closure registration that needs runtime arguments is not built, so its edges are unknown.
public struct DependencyGraph: Sendable, Equatable {
    /// One registration (with the types forwarded to it), or a service that is asked for but not registered.
    public struct Node: Sendable, Hashable, Identifiable {
        /// How a node's service is registered.
        public enum Registration: String, Sendable, CaseIterable {
            /// With `register` and a factory closure.
            case factory
            /// With `autoregister` and an initializer.
            case autoregistered
            /// Not at all: something asks for it, and nothing is registered.
            case missing
        }

        /// Identifies the node: the full type name (with its module), the name and the argument types.
        public let id: String
        /// The service type as written in Swift, e.g. `Engine`.
        public let serviceType: String
        /// The registration name.
        public let name: String?
        /// The runtime argument types, without the resolver.
        public let argumentTypes: [String]
        /// The object scope, e.g. `container`, `graph`, or a custom scope's description; nil for a missing node.
        public let scope: String?
        /// How the service is registered.
        public let registration: Registration
        /// Other types that resolve through this registration (`implements`, `forward`).
        public let forwardedTypes: [String]
        /// The identifiers of the keys of ``forwardedTypes``.
        let forwardedIDs: [ID]
        /// Whether the node is a collection (see
        /// ``Container/contribute(to:name:id:factory:)-(_,_,_,(Resolver)->Element)``), with an edge to each of its
        /// elements.
        public let isCollection: Bool
        /// For an element contributed to a collection: the collection and the element's place in it, as paths
        /// write it, e.g. `Array<Plugin>#1` or `Dictionary<String, Handler>["users"]`; nil otherwise.
        public let collectionElement: String?
        /// How many decorators wrap the service's factory (see
        /// ``Container/decorate(_:name:decorator:)-(_,_,(Resolver,Service)->Service)``); their dependencies are the
        /// node's.
        public let decoratorCount: Int

        /// The node as resolution paths write it: `Engine`, or `Engine["v8"]` for a named registration, or the
        /// element's place for an element of a collection (``collectionElement``).
        public var label: String {
            if let collectionElement { return collectionElement }
            guard let name else { return serviceType }
            return serviceType + "[\"\(name)\"]"
        }
    }

    /// One dependency: `from`'s instance uses `to`'s.
    public struct Edge: Sendable, Hashable {
        /// Where the dependency is resolved.
        public enum Kind: String, Sendable, CaseIterable {
            /// In the factory or the initializer, while the instance is being made.
            case initializer
            /// In an `initCompleted` callback, after the instance is made.
            case initCompleted
            /// By a property wrapper (`@Injected`, `@LazyInjected`, ...) of the instance being made.
            case property
        }

        /// How the dependency is taken.
        public enum Access: String, Sendable, CaseIterable {
            /// The instance itself.
            case direct
            /// As an optional: nothing is missing when the service is not registered.
            case optional
            /// Through `Lazy`: made on first use, then kept.
            case lazy
            /// Through `Provider`: made on each use, never kept.
            case provider
        }

        /// The ``Node/id`` of the node that depends.
        public let from: Node.ID
        /// The ``Node/id`` of the node depended on.
        public let to: Node.ID
        /// Where the dependency is resolved.
        public let kind: Kind
        /// How the dependency is taken.
        public let access: Access

        /// Makes an edge.
        public init(from: Node.ID, to: Node.ID, kind: Kind, access: Access = .direct) {
            self.from = from
            self.to = to
            self.kind = kind
            self.access = access
        }
    }

    /// The nodes, sorted by label, then by id.
    public let nodes: [Node]
    /// The edges, sorted by the order of their nodes, then by kind.
    public let edges: [Edge]

    init(nodes: [Node], edges: [Edge]) {
        let sorted = nodes.sorted { ($0.label, $0.id) < ($1.label, $1.id) }
        var order: [Node.ID: Int] = [:]
        for (index, node) in sorted.enumerated() { order[node.id] = index }
        self.nodes = sorted
        self.edges = edges.sorted {
            (order[$0.from] ?? 0, order[$0.to] ?? 0, $0.kind.rank, $0.access.rank)
                < (order[$1.from] ?? 0, order[$1.to] ?? 0, $1.kind.rank, $1.access.rank)
        }
    }

    /// The node with identifier `id`.
    public func node(id: Node.ID) -> Node? {
        nodes.first { $0.id == id }
    }

    /// The node of the registration of `serviceType` under `name` (without runtime arguments), or of that
    /// service when it is missing.
    ///
    /// ```swift
    /// let parent = try #require(graph.node(for: Parent.self))
    /// ```
    public func node<Service>(for serviceType: Service.Type, name: String? = nil) -> Node? {
        let id = Node.identifier(of: ServiceKey(serviceType: serviceType, argumentsType: noArguments, name: name))
        return node(id: id) ?? nodes.first { $0.forwardedIDs.contains(id) }
    }

    /// The edges leaving the node `id`: what it depends on.
    public func dependencies(of id: Node.ID) -> [Edge] {
        edges.filter { $0.from == id }
    }

    /// The edges arriving at the node `id`: what depends on it.
    public func dependents(of id: Node.ID) -> [Edge] {
        edges.filter { $0.to == id }
    }
}

extension DependencyGraph.Node {
    /// The node of a registration key (`registration` `.missing` when nothing is registered under it).
    init(
        key: ServiceKey,
        scope: String?,
        registration: Registration,
        forwarded: [ServiceKey] = [],
        isCollection: Bool = false,
        decoratorCount: Int = 0
    ) {
        id = Self.identifier(of: key)
        serviceType = String(describing: key.serviceType)
        name = key.name
        argumentTypes = key.argumentTypeNames
        self.scope = scope
        self.registration = registration
        // The key a decorated forward reaches its registration through is no type of its own (see `ForwardedOption`).
        forwardedTypes = forwarded.filter { !$0.hasOption || !($0.option is ForwardedOption) }.map(\.pathComponent)
        forwardedIDs = forwarded.map(Self.identifier(of:))
        self.isCollection = isCollection
        collectionElement = key.hasOption && key.option is ContributionOption ? key.pathComponent : nil
        self.decoratorCount = decoratorCount
    }

    /// The identifier of `key`: unique, because it writes the type with its module and enclosing types.
    static func identifier(of key: ServiceKey) -> String {
        var text = String(reflecting: key.serviceType)
        if let name = key.name { text += "[\"\(name)\"]" }
        if key.argumentsType != noArguments { text += String(reflecting: key.argumentsType) }
        if let option = key.option { text += "{\(option)}" }
        return text
    }
}

extension DependencyGraph.Edge.Kind {
    /// The order of kinds in sorted edges.
    var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}

extension DependencyGraph.Edge.Access {
    /// The order of accesses in sorted edges; a lower rank holds on more strongly.
    var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}
