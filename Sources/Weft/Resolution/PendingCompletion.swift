/// The `initCompleted` callbacks of one instance, waiting for the factories that needed it to return: one type for
/// both engines. A synchronous resolve queues them on its thread's state (``ResolutionState/pending``) and runs
/// them once no factory of its graph runs any more; an async resolve queues them on its graph or on the build of
/// the shared instance whose factory made them (``CompletionQueue``); a synchronous part of an async resolve hands
/// its own over to that queue (see `Container+Segments.swift`). Either way the callbacks run in the order their
/// instances were made, with the path that made the instance, so that a callback closing a cycle finds it and an
/// error names where the instance came from.
struct PendingCompletion: @unchecked Sendable {
    let entry: _ServiceEntryBase
    let key: ServiceKey
    let instance: Any
    /// The container whose resolve made the instance: the resolver its callbacks get.
    let resolver: Container
    /// The path that made the instance.
    let origin: Origin
    /// Where the instance is kept when it is shared and claimed by a synchronous resolve: the claim is released
    /// once the callbacks ran. An async resolve's shared instance is claimed by its build instead.
    let claim: (any InstanceHolder)?
    /// Whether another resolve can reach the instance (it is not transient): counted in
    /// ``ResolutionState/Fields/completing`` until its callbacks ran on the thread that made it.
    let reachable: Bool
    /// The graph the instance is kept for in its registration's storage, cleared when a callback of an async
    /// resolve throws; nil for a transient instance and in a synchronous resolve, which rolls back its graph itself.
    let storedIn: GraphIdentifier?
    /// The shared instance whose build the callbacks are part of (what they resolve is its dependency, checked for
    /// captive ones): a claimed shared instance's own registration; for a `.transient` or `.graph` instance made
    /// while a shared one was being made, that one, which holds it, though its factory has returned by then.
    var holder: _ServiceEntryBase? = nil

    /// The path that made an instance, as each engine knows it.
    enum Origin {
        /// A synchronous resolve's frames when the instance was made, ending with its own (empty when the
        /// callbacks run at once, under the instance's own frame): pushed again while the callbacks run later.
        case frames([RecordedFrame])
        /// The path of an async resolve to the instance, named by the error of a callback that throws.
        case path([String])
    }

    /// The frames of a synchronous resolve's instance (see ``Origin/frames(_:)``); empty for an async one's.
    var frames: [RecordedFrame] {
        if case .frames(let frames) = origin { return frames }
        return []
    }

    /// The path that made the instance, ending with its own registration.
    var path: [String] {
        switch origin {
        case .path(let path): return path
        case .frames(let frames): return frames.isEmpty ? [key.pathComponent] : ResolutionPath.components(of: frames)
        }
    }
}

/// The `initCompleted` callbacks waiting for a factory to return, and whether that factory has returned: a graph's
/// top-level factory (``AsyncGraph/completions``) or a shared instance's (``AsyncBuild/completions``). Guarded by
/// the lock of whoever holds it; the callbacks it hands out are run, or released, after that lock.
///
/// Open, it takes callbacks. The factory's side takes them out once it returned, and closes the queue when it finds
/// it empty: from then on, a task the factory started that outlives it runs its callbacks at once instead
/// (``append(_:)`` refuses them), so none is left behind. A failed build closes it and drops what was queued.
struct CompletionQueue {
    private var queued: [PendingCompletion] = []
    /// Whether the callbacks of instances made from now on run at once rather than wait here.
    private(set) var isClosed = false

    /// Whether no callback waits.
    var isEmpty: Bool { queued.isEmpty }

    /// Queues `completions` unless the queue is closed; returns whether it did (false: run them now).
    @inline(__always)
    mutating func append(_ completions: [PendingCompletion]) -> Bool {
        guard !isClosed else { return false }
        queued += completions
        return true
    }

    /// Takes what waits; when nothing does and `closingWhenEmpty`, closes the queue.
    @inline(__always)
    mutating func take(closingWhenEmpty: Bool) -> [PendingCompletion] {
        guard !queued.isEmpty else {
            if closingWhenEmpty { isClosed = true }
            return []
        }
        var taken: [PendingCompletion] = []
        swap(&taken, &queued)
        return taken
    }

    /// Closes the queue and takes what waits, for the caller to release (or run) after the lock.
    mutating func close() -> [PendingCompletion] {
        isClosed = true
        var taken: [PendingCompletion] = []
        swap(&taken, &queued)
        return taken
    }

    /// Opens the queue again for a graph or build that is reused; what waits stays (nothing, when it was closed
    /// and emptied).
    @inline(__always)
    mutating func reopen() {
        isClosed = false
    }

    /// Releases what waits, keeping the storage, for a graph that becomes a spare: a reused graph then allocates no
    /// queue again.
    mutating func empty() {
        // An empty list is left alone: emptying it still goes through the array's replacement of a range.
        if !queued.isEmpty { queued.removeAll(keepingCapacity: true) }
    }
}
