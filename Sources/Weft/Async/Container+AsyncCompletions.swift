#if !canImport(Darwin)
    import Synchronization
#endif

/// When the `initCompleted` callbacks of an async resolve's instances run: as the synchronous engine runs them, once
/// no factory of the object graph is running any more, so that a callback closing a cycle (a child resolving the
/// parent that needed it) finds the parent, made meanwhile, instead of asking for a new one.
///
/// An instance made inside a factory, by an async factory or by a synchronous one the async resolve runs, queues its
/// callbacks on the graph (``AsyncGraph/completions``); the top-level request runs them, in the order their instances
/// were made, once its factory has returned and before the instance reaches the caller. A callback that throws fails
/// the request. A shared instance (`.container`, `.scoped`, a custom scope) is the exception: other tasks wait for
/// it until its callbacks have run, and tasks of the same graph may be among them, which the top-level factory may
/// be waiting for in turn. So the instances made inside a shared instance's factory queue their callbacks on that
/// instance's build instead (``AsyncBuild/completions``), which runs them once its factory has returned, before its own
/// callbacks and before any other task gets the instance; its own callbacks run right after.
extension Container {
    /// Whether the callbacks of the instance made for `step` (a request within `context`) wait for a factory to
    /// return: they do unless the request is the top-level one or the instance is shared.
    func defersCompletion(of step: AsyncStep, in context: AsyncContext) -> Bool {
        !step.shared && !context.hasNoStep
    }

    /// Queues `completions` where the callbacks of instances made at `context` wait: on the innermost shared
    /// instance's build on its path, or on its graph. False when they are to run now instead, because that build
    /// or the top-level request has already run the callbacks it waited for (or has ended): a task that outlived
    /// its factory made the instances.
    func deferCompletions(_ completions: [PendingCompletion], in context: AsyncContext) -> Bool {
        if let build = context.sharedBuild {
            return AsyncBuilds.lock.withLock { build.completions.append(completions) }
        }
        return context.withGraph { graph in
            graph.lock.withLock { !graph.ended && graph.completions.append(completions) }
        }
    }

    /// Takes the callbacks queued on `build`, a shared instance's build whose factory has returned; when none is
    /// left, the callbacks of instances its factory's tasks make from then on run at once.
    static func takeQueued(on build: AsyncBuild) -> [PendingCompletion] {
        AsyncBuilds.lock.withLock { build.completions.take(closingWhenEmpty: true) }
    }

    /// Runs `first`, the callbacks taken from `build` (see ``takeQueued(on:)``), and those queued meanwhile, until
    /// none is left, in segments of `context`, the context of the shared instance's factory: what they resolve is a
    /// dependency of that instance.
    func runQueued(_ first: [PendingCompletion], on build: AsyncBuild, context: AsyncContext) throws {
        var taken = first
        while !taken.isEmpty {
            for completion in taken { try runCompletion(completion, root: context) }
            taken = Self.takeQueued(on: build)
        }
    }

    /// Closes the queue of `build`, a shared instance's build that failed: the callbacks left in it never run, and
    /// those of instances its factory's tasks make from then on run at once. They are released after the lock.
    static func dropQueued(on build: AsyncBuild) {
        let dropped = AsyncBuilds.lock.withLock { build.completions.close() }
        withExtendedLifetime(dropped) {}
    }

    /// Runs the callbacks waiting in the graph of `root`, the top-level context of a resolve whose factory has
    /// returned; from then on, the callbacks of instances made in the graph run at once. A resolve without a graph
    /// made no instance with callbacks.
    ///
    /// The resolution is marked ended first, then its graph read: a task its factories started that makes the graph
    /// later (and would queue callbacks no one runs) finds the resolution ended, and ends that graph at once, whose
    /// callbacks then run at once too (see ``deferCompletions(_:in:)``).
    @inline(__always)
    func completeDeferred(root: AsyncContext) throws {
        guard let graph = root.endedResolutionsGraph() else { return }
        try runPending(in: graph, root: root, closing: true)
    }

    /// Runs the callbacks queued so far in the graph of `root`, whose top-level request is about to run its own
    /// instance's callbacks: those of the instances made inside its factory run first, as the synchronous engine
    /// orders them. The request's resolution goes on (``completeDeferred(root:)`` ends it).
    func runQueuedCompletions(root: AsyncContext) throws {
        guard let graph = root.existingGraph else { return }
        try runPending(in: graph, root: root, closing: false)
    }

    /// Runs the callbacks queued in `graph` until none is left; when `closing`, the callbacks of instances made in
    /// the graph from then on run at once.
    @inline(never)
    private func runPending(in graph: Unmanaged<AsyncGraph>, root: AsyncContext, closing: Bool) throws {
        while true {
            let taken = graph._withUnsafeGuaranteedRef { graph in
                graph.lock.withLock { graph.completions.take(closingWhenEmpty: closing) }
            }
            // Another task of the graph (one its factories started) may queue more while these run.
            guard !taken.isEmpty else { return }
            for completion in taken { try runCompletion(completion, root: root) }
        }
    }

    /// Runs the callbacks of `completion` in a synchronous segment of `root`'s graph; when one throws, the
    /// instance leaves its registration's storage and the request fails.
    func runCompletion(_ completion: PendingCompletion, root: AsyncContext) throws {
        let (entry, resolver) = (completion.entry, completion.resolver)
        do {
            try resolver.runSegment(root, origin: entry, inFactory: false) { _ in
                try entry.runInitCompleted(resolver: resolver, instance: completion.instance)
            }
        } catch {
            if let graph = completion.storedIn { entry.store(nil, inGraph: graph) }
            if let error = error as? ResolutionError { throw error }
            throw ResolutionError(
                reason: .initCompletedFailed,
                key: completion.key,
                path: completion.path,
                underlyingError: error
            )
        }
    }
}

extension AsyncContext {
    /// For a top-level context whose factory has returned: marks its resolution ended, then returns its graph,
    /// unretained, when a request has made one. Both in this order and sequentially consistent, as `makeGraph()`
    /// installs a graph and then reads whether the resolution has ended: either this sees the graph, or that
    /// sees the end.
    func endedResolutionsGraph() -> Unmanaged<AsyncGraph>? {
        // A step's context marked ended would keep the mark as a spare, and end every resolution it later starts.
        assert(rootReference === self, "only a top-level context ends its resolution")
        #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
            return Self.resolutionLock.withLock {
                resolutionEnded = true
                return graphOwner.map(Unmanaged.passUnretained)
            }
        #else
            resolutionEnded.store(true, ordering: .sequentiallyConsistent)
            return graphOwner.load(ordering: .sequentiallyConsistent).map { Unmanaged<AsyncGraph>.fromOpaque($0) }
        #endif
    }

    /// For a top-level context: its resolution's graph, unretained, when a request has made one.
    var existingGraph: Unmanaged<AsyncGraph>? {
        #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
            Self.resolutionLock.withLock { graphOwner.map(Unmanaged.passUnretained) }
        #else
            graphOwner.load(ordering: .acquiring).map { Unmanaged<AsyncGraph>.fromOpaque($0) }
        #endif
    }
}
