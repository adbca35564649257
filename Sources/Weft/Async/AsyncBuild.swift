/// A shared instance being made by an async factory, which other tasks may wait for; or a graph-scoped instance
/// of a synchronous factory being made by one thread of an async graph, which the graph's other threads and tasks
/// wait for (see ``thread``).
///
/// The instance, once made, is kept apart from ``state`` in a ``Made`` of its own, so that the graph's end
/// releases it in place (see ``clear()``) rather than destroying an enum that holds an `Any` through its generic
/// value witnesses.
final class AsyncBuild: @unchecked Sendable {
    enum Outcome {
        case made(Made)
        /// The build failed (or was cancelled): the waiter tries again, perhaps building it itself.
        case retry
        /// Waiting would never end: the build waits, directly or not, for the waiter. The path of the cycle.
        case cycle([String])
        /// The waiting task was cancelled: it stops waiting, the build goes on for the others.
        case cancelled
    }

    /// A task waiting for the build: its continuation, and a token to find it by when the task is cancelled.
    struct Waiter {
        let token: ObjectIdentifier
        let continuation: CheckedContinuation<Outcome, Never>
    }

    /// Set again when a graph reuses the build (see ``AsyncGraph/newBuildLocked(key:)``).
    @exclusivity(unchecked) var key: ServiceKey
    /// Guarded by ``AsyncBuilds/lock``.
    @exclusivity(unchecked) var waiters: [Waiter] = []
    /// Builds this one waits for: builds its factory started, and builds it waits for another task to finish.
    @exclusivity(unchecked) var waitsFor = BuildList()
    /// The thread making the instance with a synchronous factory, for a build claimed by a synchronous part of an
    /// async graph (see `Container+Segments.swift`); nil for a task's build. Guarded by ``AsyncBuilds/lock``.
    @exclusivity(unchecked) var thread: ThreadBuilder?
    /// For a shared instance's build: the `initCompleted` callbacks of the instances made inside its factory, which
    /// run once that factory has returned (see `Container+AsyncCompletions.swift`). Guarded by ``AsyncBuilds/lock``.
    @exclusivity(unchecked) var completions = CompletionQueue()
    /// For a graph-scoped instance's build: the registrations its factory used (see ``UseLog``), which a shared
    /// instance that reuses the instance later in the graph records as its dependencies. Guarded by
    /// ``AsyncBuilds/lock``.
    @exclusivity(unchecked) var uses = UseLog()
    /// Running, or how the build ended. Not an optional outcome: destroying or copying an optional of an enum
    /// that holds an instance of any type goes through the optional's value witnesses, on every build.
    @exclusivity(unchecked) private(set) var state = State.running
    /// The instance, when ``state`` is ``State/made``; an `Any` of `()` otherwise (not an optional: an optional of
    /// `Made` is copied and destroyed through `Made`'s value witnesses).
    @exclusivity(unchecked) private var instance = Made(value: ())

    /// A build's ``Outcome``, or that it is still running; the instance it made is in ``made``.
    enum State {
        case running
        case made
        case retry
        case cycle([String])
        case cancelled
    }

    init(key: ServiceKey) {
        assert(MemoryLayout<Made>.size == Made.typeOffset + MemoryLayout<Any.Type>.size)
        self.key = key
    }

    deinit {
        uses.deallocate()
    }

    /// The instance the build made; nil while it runs or when it failed.
    var made: Made? {
        guard case .made = state else { return nil }
        return instance
    }

    /// Ends the build with the instance it made. Guarded by ``AsyncBuilds/lock``.
    func finish(with made: consuming Made) {
        Self.put(made, in: &instance)
        state = .made
    }

    /// Makes the build a running one again, releasing the instance it made: a spare a graph reuses. Call without
    /// the lock when the instance may be the last reference to it: releasing it may run its deinit, user code.
    func clear() {
        state = .running
        completions.reopen()
        uses.removeAll()
        Self.release(&instance)
    }

    /// How the build ended; nil while it runs.
    var outcome: Outcome? {
        get {
            switch state {
            case .running: return nil
            case .made: return .made(instance)
            case .retry: return .retry
            case .cycle(let path): return .cycle(path)
            case .cancelled: return .cancelled
            }
        }
        set {
            switch newValue {
            case nil: state = .running
            case .made(let made)?: finish(with: made)
            case .retry?: state = .retry
            case .cycle(let path)?: state = .cycle(path)
            case .cancelled?: state = .cancelled
            }
        }
    }
}

/// The thread that makes a graph-scoped instance of a synchronous factory in an async graph, and where that
/// instance goes once made: its registration's storage, for the graph.
struct ThreadBuilder {
    let state: ResolutionState
    let entry: _ServiceEntryBase
    let graph: GraphIdentifier
}

/// A thread that needs the instance a thread build makes waits for it as it waits for a shared instance, through
/// the ``BuildCoordinator``, which sees every wait of every thread: a cycle of waits is found, not waited out.
extension AsyncBuild: BuildWaitTarget {
    var waitBuilder: ResolutionState? { AsyncBuilds.lock.withLock { thread?.state } }

    /// Whether the instance is in its registration's storage already (its `initCompleted` callbacks may still be
    /// running): a thread on a cycle of waits through it takes that instance rather than wait.
    var offersInstance: Bool {
        guard let thread = AsyncBuilds.lock.withLock({ thread }) else { return false }
        return thread.entry.storedInstance(inGraph: thread.graph) != nil
    }
}

extension AsyncBuild {
    /// Puts `made` at `address`. The usual case, a build that holds nothing yet (an `Any` of `()`, which has nothing
    /// to destroy), is initialised over it: assigning would destroy the `()` through its type's value witnesses.
    private static func put(_ made: consuming Made, in address: UnsafeMutablePointer<Made>) {
        if UnsafeRawPointer(address).load(fromByteOffset: Made.typeOffset, as: Any.Type.self) == Void.self {
            address.initialize(to: made)
        } else {
            address.pointee = made
        }
    }

    /// Releases the instance at `address`, leaving an `Any` of `()`. An instance of a type that holds one reference
    /// (a class, or an existential only classes adopt: the usual service) has it released directly, where
    /// destroying the `Any` goes through two generic value-witness calls.
    ///
    /// An `Any` keeps its value in a three-word buffer followed by the value's type metadata (the runtime's
    /// `OpaqueExistentialContainer`, part of its stable ABI). A value of such a type is its reference followed by
    /// witness tables: inline when it fits in the buffer, its reference the first word; otherwise the first word is
    /// a reference to a box that owns the value, and releasing the box destroys it. Either way, releasing the first
    /// word destroys the value.
    private static func release(_ address: UnsafeMutablePointer<Made>) {
        let raw = UnsafeMutableRawPointer(address)
        let type = raw.load(fromByteOffset: Made.typeOffset, as: Any.Type.self)
        if type == Void.self { return }
        guard TypeKind.holdsOneReference(type) else {
            address.pointee = Made(value: ())
            return
        }
        raw.load(as: Unmanaged<AnyObject>.self).release()
        address.initialize(to: Made(value: ()))
    }
}
