/// The async graph a `Provider` or a `Lazy` was resolved in, as the wrapper keeps it: while that graph's resolve
/// goes on, the wrapper makes its instances in the graph, as a synchronous part of it, sharing its graph-scoped
/// instances whichever engine made them, as a wrapper resolved by a synchronous factory makes them in that
/// factory's graph while it is being resolved on the thread.
///
/// The graph is retained: a graph something else refers to is not taken again as a thread's spare (see
/// ``AsyncGraph/recycle(_:)``), so its identifier and whether it ended stay what the wrapper reads.
struct ProviderGraph: @unchecked Sendable {
    private let graph: AsyncGraph
    private let id: GraphIdentifier
    private let container: Container

    /// The async graph `graph` names when it is the one whose synchronous part this thread runs (the provider is
    /// being resolved there); nil otherwise.
    init?(_ graph: GraphIdentifier?, container: Container) {
        guard let graph, let segment = ResolutionState.current.segmentGraph else { return nil }
        let async = segment.takeUnretainedValue()
        guard async.id == graph else { return nil }
        self.graph = async
        id = graph
        self.container = container
    }

    /// What `make` makes in the graph, when its resolve is still going on and this thread is not resolving
    /// already (a resolve in flight on the thread is the graph a provider's instance joins, as in the synchronous
    /// engine); nil otherwise, when the provider makes it as outside any async graph.
    func make(_ make: (GraphIdentifier?) throws -> Any) throws -> Any? {
        guard ResolutionState.current.depth == 0, graph.lock.withLock({ !graph.ended }) else { return nil }
        let made: Any = try container.resolvingInAsyncGraph(graph) { try make(id) }
        return made
    }
}

extension Container {
    /// Runs `body` in the synchronous engine inside `graph`, a live async graph, outside its factories' segments (a
    /// `Provider` asked for an instance from async code): as a synchronous part of the graph, its graph-scoped
    /// instances are claimed in the graph, and what it made is kept until the graph ends.
    func resolvingInAsyncGraph<T>(_ graph: AsyncGraph, _ body: () throws -> T) throws -> T {
        graph.publish()
        return try resolving(graph: graph.id) { state in
            let outer = state.segmentGraph
            state.segmentGraph = .passUnretained(graph)
            defer { state.segmentGraph = outer }
            let result = try body()
            let made = instancesMade(inGraph: graph.id, state: state)
            // Not once the graph has ended (it raced this resolve): its end would not release them.
            if !made.isEmpty { AsyncBuilds.lock.withLock { if !graph.ended { graph.kept += made } } }
            return result
        }
    }
}
