/// The life of an object graph on one thread: entering and leaving a resolve, and what happens when the
/// top-level resolve ends (storages told, unfinished instances discarded, instances released).
extension Container {
    /// Runs `body` inside a graph: the thread's current one, `graph` when given, or a new one.
    /// The outermost call completes the graph (or, when it fails, discards what the graph stored).
    func resolving<T>(
        graph: GraphIdentifier?,
        _ body: (ResolutionState) throws -> T
    ) rethrows -> T {
        let state = ResolutionState.current
        let entered = state.enterEngine()
        defer { state.leaveEngine(entered) }
        let outer = begin(state, graph: graph)
        do {
            let result = try body(state)
            finish(state, restoring: outer, failed: false)
            return result
        } catch {
            finish(state, restoring: outer, failed: true)
            throw error
        }
    }

    /// Enters a resolve: a top-level one starts a graph (`graph`, a restored one, or a new private one).
    /// Returns the graph to restore when the resolve ends: nil when `graph` is nil, which leaves it as it is.
    @inline(__always)
    func begin(_ state: ResolutionState, graph: GraphIdentifier?) -> GraphIdentifier? {
        let fields = state.fields
        let outer = graph == nil ? nil : fields.pointee.graph
        if fields.pointee.depth == 0 {
            fields.pointee.topContainer = ObjectIdentifier(self)
            // Records below the top belong to a graph that is being released (a deinit started this resolve).
            fields.pointee.made.markTop()
            if let given = graph ?? takeRestoredGraph() {
                fields.pointee.graph = given
                fields.pointee.privateGraph = nil
            } else {
                let fresh = GraphIdentifier(id: state.nextGraphID())
                fields.pointee.graph = fresh
                fields.pointee.privateGraph = fresh
            }
        } else {
            if let graph { fields.pointee.graph = graph }
            if fields.pointee.topContainer != ObjectIdentifier(self),
                !fields.pointee.keptContainers.contains(where: { $0 === self })
            {
                fields.pointee.keptContainers.append(self)
            }
        }
        fields.pointee.depth += 1
        return outer
    }

    /// Leaves a resolve; the outermost one completes the graph.
    @inline(__always)
    func finish(_ state: ResolutionState, restoring outer: GraphIdentifier?, failed: Bool) {
        let fields = state.fields
        fields.pointee.depth -= 1
        guard fields.pointee.depth == 0 else {
            if outer != nil { fields.pointee.graph = outer }
            return
        }
        let graph = fields.pointee.graph
        fields.pointee.graph = nil
        fields.pointee.privateGraph = nil
        fields.pointee.topContainer = ResolutionState.Fields.noContainer
        fields.pointee.factoriesRunning = 0
        if !fields.pointee.frames.isEmpty {
            fields.pointee.frames.removeAll()
        }
        if !fields.pointee.sharedBuilds.isEmpty {
            fields.pointee.sharedBuilds.removeAll()
        }
        if fields.pointee.graphBuilds != 0 {
            fields.pointee.clearGraphBuilds()
        }
        if !fields.pointee.pending.isEmpty {
            // Callbacks that never ran (a failure left them) are no longer waited for.
            fields.pointee.completing = 0
            // Released after the swap: a deinit may start a resolve on this thread.
            var dropped: [PendingCompletion] = []
            swap(&dropped, &fields.pointee.pending)
        }
        if fields.pointee.made.isEmpty, fields.pointee.claims.isEmpty, fields.pointee.adopted.isEmpty,
            fields.pointee.keptContainers.isEmpty
        {
            return
        }
        completeGraph(state, graph: graph, failed: failed)
    }

    /// Ends the graph of a top-level resolve that made or used instances: tells their storages, or, when
    /// the resolve failed, discards what it stored (graph-scoped instances, and shared ones whose
    /// `initCompleted` callbacks did not all run); then releases the instances.
    ///
    /// Telling a storage or releasing an instance may run a deinit that resolves again on this thread: that
    /// resolve starts a graph of its own above ``ResolutionState/Fields/made``'s top and pops back to it, so
    /// the records are read by index, through `fields`, after every call that may run one.
    func completeGraph(_ state: ResolutionState, graph: GraphIdentifier?, failed: Bool) {
        let fields = state.fields
        let first = fields.pointee.made.mark
        // Only instances also in their registration's storage have a storage to tell.
        let end = fields.pointee.made.stored > 0 ? fields.pointee.made.count : first
        // A failed resolve discards the shared instances it claimed and did not complete: looked up in a set,
        // so that a wide graph that fails is not quadratic. Nil when nothing is discarded (an empty set would
        // still be released).
        let unfinished = failed && first < end ? fields.pointee.claims.identifiers : nil
        var index = first
        while index < end {
            let record = fields.pointee.made[index]
            index += 1
            guard record.inStorage else { continue }
            let entry = record.entry.object
            if failed, let graph,
                record.policy == .perGraph || unfinished?.contains(ObjectIdentifier(entry)) == true
            {
                entry.store(nil, inGraph: graph)
            }
            entry.graphCompleted()
        }
        if !fields.pointee.claims.isEmpty { releaseClaims(of: state, failed: failed) }
        // Released before waiting for adopted instances, whose builders may wait for these. Nothing of this graph
        // is being completed any more.
        fields.pointee.completing = 0
        if !fields.pointee.deferredClaims.isEmpty { releaseDeferredClaims(of: state) }
        if !fields.pointee.adopted.isEmpty { waitForAdoptedInstances(of: state) }
        // Kept alive until the instances are released, out of the state so that a resolve a deinit starts
        // meanwhile keeps its own.
        var kept: [Container]?
        if !fields.pointee.keptContainers.isEmpty {
            kept = fields.pointee.keptContainers
            fields.pointee.keptContainers = []
        }
        releaseMade(fields, downTo: first)
        if var kept {
            kept.removeAll(keepingCapacity: true)
            if fields.pointee.keptContainers.isEmpty { fields.pointee.keptContainers = kept }
        }
    }

    /// Releases the records of the resolve that is ending above index `first`, newest first, each in place: the slot
    /// stays taken while its instance is released (a deinit may start a resolve, whose records go above it).
    @inline(never)
    func releaseMade(_ fields: UnsafeMutablePointer<ResolutionState.Fields>, downTo first: Int) {
        while fields.pointee.made.count > first {
            let last = fields.pointee.made.count - 1
            fields.pointee.made.destroy(at: last)
            fields.pointee.made.count = last
        }
    }

    /// Makes the current graph nameable from outside the resolve (a `Lazy`, `GraphIdentifier` or
    /// `currentObjectGraph` captured it): its graph-scoped instances go into their registrations' storage,
    /// where a later resolve in the same graph finds them.
    func graphEscapes(_ state: ResolutionState) {
        let fields = state.fields
        guard let graph = fields.pointee.privateGraph else { return }
        fields.pointee.privateGraph = nil
        var index = fields.pointee.made.mark
        while index < fields.pointee.made.count {
            let record = fields.pointee.made[index]
            if !record.inStorage, record.graph == graph {
                fields.pointee.made.setInStorage(at: index)
                record.entry.object.store(fields.pointee.made.erased(at: index), inGraph: graph)
            }
            index += 1
        }
    }

    /// The instances the current top-level resolve made or used in `graph`, as `Any`: what an async graph keeps
    /// alive between its synchronous parts.
    func instancesMade(inGraph graph: GraphIdentifier, state: ResolutionState) -> [Any] {
        let fields = state.fields
        var instances: [Any] = []
        var index = fields.pointee.made.mark
        while index < fields.pointee.made.count {
            if fields.pointee.made[index].graph == graph { instances.append(fields.pointee.made.erased(at: index)) }
            index += 1
        }
        return instances
    }
}
