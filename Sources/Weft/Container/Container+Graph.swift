extension Container {
    /// The object graph being resolved on the calling thread, or the one set by ``restoreObjectGraph(_:)``
    /// for the next resolve; `nil` otherwise.
    var currentObjectGraph: GraphIdentifier? {
        let state = ResolutionState.current
        if state.depth > 0 {
            graphEscapes(state)
            return state.graph
        }
        return pendingRestoredGraph
    }

    /// Makes the next resolve (or the running one) use `identifier` as its object graph, so that it shares
    /// the graph-scoped instances of that graph that are still alive.
    func restoreObjectGraph(_ identifier: GraphIdentifier) {
        let state = ResolutionState.current
        if state.depth > 0 {
            state.graph = identifier
        } else {
            setRestoredGraph(identifier)
        }
    }

    /// Resolves everything `closure` resolves into the object graph `identifier`, so that graph-scoped
    /// services are shared with the graph that identifier came from.
    ///
    /// ```swift
    /// let graph = try container.require(GraphIdentifier.self)   // inside a factory
    /// container.withObjectGraph(graph) { $0.resolve(Dog.self) }  // later: the same Dog
    /// ```
    ///
    /// - Returns: What `closure` returns.
    public func withObjectGraph<T>(_ identifier: GraphIdentifier, closure: (Container) throws -> T) rethrows -> T {
        try resolving(graph: identifier) { _ in try closure(self) }
    }
}
