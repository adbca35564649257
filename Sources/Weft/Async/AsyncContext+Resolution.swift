import WeftAtomics

#if !canImport(Darwin)
    import Synchronization
#endif

/// What a top-level context holds for its whole resolution: the container, the activity record, whether the
/// resolve has ended, and the graph, made only when a request needs one.
///
/// A request that is transient all the way (its factory and every factory it reaches) needs no graph: its checks
/// read the path, and its instances are the caller's. A graph is needed by the first request for a graph-scoped,
/// shared or scoped instance, a synchronous factory, `initCompleted` callbacks or a verification's recording, and
/// any step of the resolution may be that first one (also from a child task of a factory): the graph is made
/// then, once, and the resolution's end ends it.
extension AsyncContext {
    /// The context of a top-level resolve started from `container`, in `graph` when it is given (a verification's,
    /// which records), else in a graph made when a request first needs one: a spare of this thread's when there is
    /// one. Call inside the engine: the resolution's activity record enters it before the thread leaves it.
    static func root(_ graph: AsyncGraph?, container: Container) -> AsyncContext {
        root(taking: graph.map(Unmanaged.passRetained), container: container)
    }

    /// ``root(_:container:)`` taking over a reference to `graph` (a graph started for the resolve).
    static func root(taking graph: Unmanaged<AsyncGraph>?, container: Container) -> AsyncContext {
        let context = takeSpare() ?? AsyncContext()
        context.startResolution(container: container)
        if context.activity == nil { context.activity = weft_activity_take() }
        weft_activity_enter(context.activity)
        if let graph {
            // Not yet seen by any other task: set without synchronisation.
            if graph._withUnsafeGuaranteedRef({ $0.isRecording }) { context.startRecording() }
            #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
                context.graphOwner = graph.takeRetainedValue()
            #else
                context.graphOwner.store(graph.toOpaque(), ordering: .relaxed)
            #endif
        }
        return context
    }

    /// The graph of this top-level context's resolution, unretained (the context holds it): made now when the
    /// resolution has none yet.
    @inline(__always)
    func resolutionGraph() -> Unmanaged<AsyncGraph> {
        #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
            if let graph = Self.resolutionLock.withLock({ graphOwner.map(Unmanaged.passUnretained) }) { return graph }
        #else
            if let graph = graphOwner.load(ordering: .acquiring) { return .fromOpaque(graph) }
        #endif
        return makeGraph()
    }

    /// Makes the resolution's graph, unless another task of the resolution made it first: then that one. A graph
    /// made once the resolve has ended (by a task its factories started, which raced the end) is ended at once,
    /// as the resolution's graph would have been.
    @inline(never)
    private func makeGraph() -> Unmanaged<AsyncGraph> {
        var made = AsyncGraph.start(ResolutionState.current)
        let candidate = Unmanaged.passRetained(made)
        #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
            let (graph, ended): (Unmanaged<AsyncGraph>, Bool) = Self.resolutionLock.withLock {
                if let graph = graphOwner { return (.passUnretained(graph), false) }
                graphOwner = candidate.takeRetainedValue()
                return (candidate, resolutionEnded)
            }
            let lost = graph.toOpaque() != candidate.toOpaque()
            if lost { candidate.release() }
        #else
            // Sequentially consistent, as the end's store and load (see `endResolution`): either the end sees the
            // graph, or this sees the end.
            let (installed, original) = graphOwner.compareExchange(
                expected: nil, desired: candidate.toOpaque(), ordering: .sequentiallyConsistent)
            let lost = !installed
            if lost { candidate.release() }
            let graph = installed ? candidate : Unmanaged<AsyncGraph>.fromOpaque(original.unsafelyUnwrapped)
            let ended = installed && resolutionEnded.load(ordering: .sequentiallyConsistent)
        #endif
        if lost {
            made.end()
            AsyncGraph.recycle(&made)
        } else if ended {
            made.end()
        }
        return graph
    }

    /// Ends this top-level context's resolution: resolves through its contexts start resolutions of their own from
    /// now on, its graph (if it made one) ends, and its activity record leaves the engine.
    func endResolution() {
        #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
            let graph = Self.resolutionLock.withLock {
                resolutionEnded = true
                return graphOwner
            }
            graph?.end()
        #else
            resolutionEnded.store(true, ordering: .sequentiallyConsistent)
            if let graph = graphOwner.load(ordering: .sequentiallyConsistent) {
                Unmanaged<AsyncGraph>.fromOpaque(graph)._withUnsafeGuaranteedRef { $0.end() }
            }
        #endif
        weft_activity_leave(activity)
    }

    /// Clears what this top-level context held for its resolution, which has ended and which nothing else refers to
    /// (it becomes a spare): its graph, if it made one, becomes the thread's spare graph.
    func detachGraph() {
        #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
            resolutionEnded = false
            guard var graph = graphOwner.take() else { return }
        #else
            resolutionEnded.store(false, ordering: .relaxed)
            guard let taken = graphOwner.exchange(nil, ordering: .relaxed) else { return }
            var graph = Unmanaged<AsyncGraph>.fromOpaque(taken).takeRetainedValue()
        #endif
        AsyncGraph.recycle(&graph)
    }
}
