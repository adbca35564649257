import WeftAtomics

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The bookkeeping of the resolution running on one thread: the object graph, the path of
/// registrations in flight (for exact cycle detection and error paths), the instances the graph
/// made, and the `initCompleted` callbacks that wait for the graph's factories to return.
///
/// There is one per thread, made on first use and reused, so a resolve allocates nothing for it.
/// A resolve that a factory starts on the same thread (through any container) joins the graph.
/// Its fields live behind a pointer, so the hot path pays no exclusivity checks for them.
@usableFromInline final class ResolutionState {
    @usableFromInline struct Fields {
        /// What ``topContainer`` holds while no top-level resolve runs: no container has this identifier.
        static var noContainer: ObjectIdentifier { ObjectIdentifier(Fields.self) }

        @usableFromInline var depth = 0
        var graph: GraphIdentifier?
        /// The graph the current top-level resolve made and that nothing outside can name yet: its
        /// graph-scoped instances live only in ``made``. Nil once the graph escaped (see ``graphEscapes()``).
        var privateGraph: GraphIdentifier?
        var frames = FrameStack()
        /// In a synchronous part of an async resolve (see `Container+Segments.swift`): the context of the async
        /// step whose factory asked for it, where the path goes on outside ``frames`` (see ``ResolutionPath``).
        /// Unretained: that factory's caller holds it while the part runs.
        var outerSteps: Unmanaged<AsyncContext>?
        /// Whether the factory of ``outerSteps``' own step runs, rather than its `initCompleted` callbacks.
        var outerStepInFactory = true
        var factoriesRunning = 0
        var pending: [PendingCompletion] = [] { didSet { note(Self.queueing, pending.isEmpty) } }
        /// The instances the graph made or used from a shared scope (kept alive until the top-level resolve
        /// ends, and discarded from storage when it fails), with the records of nested top-level resolves
        /// that deinits start while it ends.
        var made = MadeRecords()
        var claims = ClaimList() { didSet { note(Self.claiming, claims.isEmpty) } }
        /// How many instances this resolve made that another resolve can reach (not transient) have `initCompleted`
        /// callbacks queued or running: while any has, a shared instance made meanwhile may hold it half-built (see
        /// ``Container/releaseCompletedClaim(on:state:)``).
        var completing = 0
        /// The claims of complete shared instances kept until ``completing`` is back to zero, or the graph ends.
        var deferredClaims: [any InstanceHolder] = [] { didSet { note(Self.deferring, deferredClaims.isEmpty) } }
        var adopted: [any InstanceHolder] = [] { didSet { note(Self.adopting, adopted.isEmpty) } }
        /// The container the top-level resolve was asked of; ``noContainer`` when idle. Not optional, so that
        /// comparing it with a container on every nested resolve is a single compare.
        var topContainer = Fields.noContainer
        /// Other containers resolved through during the top-level resolve, kept alive until it ends
        /// because ``made`` and ``frames`` refer to their registrations without retaining them.
        var keptContainers: [Container] = [] { didSet { note(Self.keeping, keptContainers.isEmpty) } }
        /// The shared registrations whose instances are being made (factory or callbacks), innermost last:
        /// what a resolve uses meanwhile is recorded as their dependency, for invalidation.
        @usableFromInline var sharedBuilds: [EntryReference] = [] {
            didSet { note(Self.notingUses, sharedBuilds.isEmpty && graphBuilds == 0) }
        }
        /// How many factories of graph-scoped instances are running (beside a top-level resolve's own): what a
        /// resolve uses meanwhile goes into ``made``'s log of uses, so that a singleton that reuses such an
        /// instance later in the graph is recorded as made with it too. Changed through ``openGraphBuild()`` and
        /// ``closeGraphBuild()``, which keep ``busy``.
        private(set) var graphBuilds = 0
        /// A caller's preparation for the instance made at frame index ``preparationFrame`` (see
        /// `Resolver.require(_:name:preparing:)`).
        var preparation: ((Any) throws -> Void)? { didSet { note(Self.preparing, preparation == nil) } }
        var preparationFrame = -1
        /// Records who resolves what while ``Container/verify(strict:)`` builds in its throwaway copy; nil otherwise.
        @usableFromInline var graphRecorder: GraphRecorder? { didSet { note(Self.recording, graphRecorder == nil) } }
        var nextGraph: UInt64 = 0
        var graphBlockEnd: UInt64 = 0
        /// The `Lazy` or `Provider` whose factory is asking for its service, with the frame count at the ask:
        /// a cycle closed by that ask gets a hint that fits (the asker already takes the wrapper).
        var wrapperRequest: (frames: Int, wrapper: any InstanceWrapper.Type)?
        /// Below this stack address no new instance is started (see ``StackGuard``); 0 for no check.
        var stackLimit: UInt = 0
        /// What is going on beside the plain making of instances, one bit a field that says so (see the masks
        /// below): zero exactly when nothing is, so that the hot path tests for any of it with one compare. Kept
        /// by the observers of those fields, so no change of them can miss it.
        @usableFromInline private(set) var busy: UInt8 = 0

        private static var recording: UInt8 { 1 }
        private static var preparing: UInt8 { 2 }
        private static var queueing: UInt8 { 8 }
        private static var claiming: UInt8 { 16 }
        private static var adopting: UInt8 { 32 }
        private static var keeping: UInt8 { 64 }
        private static var deferring: UInt8 { 128 }

        /// The bits of ``busy`` set while a verification records (``graphRecorder``) or a caller prepares an
        /// instance (``preparation``): a resolve then records or prepares, which the nested path does not.
        @usableFromInline static var recordingOrPreparing: UInt8 { recording | preparing }
        /// The bit of ``busy`` set while a shared instance is being made (``sharedBuilds``) or a graph-scoped one
        /// (``graphBuilds``): what a resolve uses meanwhile is recorded as the shared one's dependency, or logged.
        @usableFromInline static var notingUses: UInt8 { 4 }
        /// The bits of ``busy`` set while the graph holds anything its end must complete beside ``made``: queued
        /// callbacks, claims, adopted instances, kept containers, shared (or graph-scoped) builds.
        static var keepingOrQueueing: UInt8 { queueing | claiming | adopting | keeping | notingUses | deferring }

        /// Notes that a graph-scoped instance's factory starts.
        @inline(__always)
        mutating func openGraphBuild() {
            graphBuilds &+= 1
            busy |= Self.notingUses
        }

        /// Notes that a graph-scoped instance's factory returned or threw.
        @inline(__always)
        mutating func closeGraphBuild() {
            graphBuilds &-= 1
            if graphBuilds == 0, sharedBuilds.isEmpty { busy &= ~Self.notingUses }
        }

        /// Forgets the graph-scoped builds a failed resolve left open.
        mutating func clearGraphBuilds() {
            graphBuilds = 0
            if sharedBuilds.isEmpty { busy &= ~Self.notingUses }
        }

        /// Sets `bit` of ``busy`` unless `clear`.
        private mutating func note(_ bit: UInt8, _ clear: Bool) {
            busy = clear ? busy & ~bit : busy | bit
        }
    }

    @usableFromInline let fields: UnsafeMutablePointer<Fields>
    /// This thread's cache of registry lookups.
    @usableFromInline let lookups = LookupCache()
    /// What this thread waits for (read by other threads under the coordinator's lock).
    var waitingFor: (any BuildWaitTarget)?
    /// This thread's path while it waits, ending with what it waits for (read by other threads under the
    /// coordinator's lock, to name every step of a cycle of waits).
    var waitingPath: [String] = []
    /// The shared registration async code asked this thread to make: when another thread is building it,
    /// the engine throws ``BuildInProgress`` for the task to suspend rather than blocking the thread.
    var suspendsForBuildOf: ObjectIdentifier?
    /// The async graph whose synchronous part this thread runs (see `Container+Segments.swift`): its
    /// graph-scoped instances are claimed in the graph, which other threads may be building in at the same time.
    var segmentGraph: Unmanaged<AsyncGraph>?
    /// Whether async code that can suspend asked this thread for the instance now being resolved: while another
    /// thread builds it in the same async graph, the engine throws ``BuildInProgress`` rather than blocking.
    var suspendsForGraphBuilds = false
    /// The async resolution whose factory this thread runs synchronous code for (see `Container+Segments.swift`):
    /// the `initCompleted` callbacks of what it makes wait for that resolution's factory, not for this thread's
    /// resolve. Nil outside such code, and in code run for the top-level request or for callbacks.
    var segmentDeferral: Unmanaged<AsyncContext>?

    /// The bounds of the stack of the thread this state belongs to.
    let stack: StackGuard
    /// This thread's activity record: the epoch it entered the engine at (see ``enterEngine()``).
    @usableFromInline let activity: UnsafeMutablePointer<weft_activity>

    /// Stands for a task as the builder of a shared instance, from its claim until the instance is complete: see
    /// ``_ServiceEntryBase/claimForTask(key:graph:)``. Only compared by identity, never used to resolve.
    nonisolated(unsafe) static let asyncBuilder = ResolutionState()

    /// Made on the thread it belongs to (see ``current``), whose stack bounds it reads.
    init() {
        stack = StackGuard.forCurrentThread()
        activity = weft_activity_take()
        fields = .allocate(capacity: 1)
        fields.initialize(to: Fields())
        fields.pointee.stackLimit = stack.limit
    }

    deinit {
        weft_activity_give_back(activity)
        lookups.deallocate()
        fields.pointee.made.deallocate()
        fields.pointee.frames.deallocate()
        fields.deinitialize(count: 1)
        fields.deallocate()
    }

    /// How many resolves are running on this thread (0 when idle).
    var depth: Int {
        _read { yield fields.pointee.depth }
        _modify { yield &fields.pointee.depth }
    }

    /// The graph being resolved; nil when idle.
    var graph: GraphIdentifier? {
        _read { yield fields.pointee.graph }
        _modify { yield &fields.pointee.graph }
    }

    /// The registrations in flight, outermost first.
    var frames: FrameStack {
        _read { yield fields.pointee.frames }
        _modify { yield &fields.pointee.frames }
    }

    /// How many factories are running.
    var factoriesRunning: Int {
        _read { yield fields.pointee.factoriesRunning }
        _modify { yield &fields.pointee.factoriesRunning }
    }

    /// `initCompleted` callbacks waiting for the running factories to return.
    var pending: [PendingCompletion] {
        _read { yield fields.pointee.pending }
        _modify { yield &fields.pointee.pending }
    }

    /// Shared registrations this resolution claimed and has not finished yet.
    var claims: ClaimList {
        _read { yield fields.pointee.claims }
        _modify { yield &fields.pointee.claims }
    }

    /// Shared instances taken, unfinished, from another thread to break a wait cycle.
    var adopted: [any InstanceHolder] {
        _read { yield fields.pointee.adopted }
        _modify { yield &fields.pointee.adopted }
    }

    /// A process-wide unique graph identifier, without taking a lock (but once per 2^20 graphs).
    @inline(__always)
    func nextGraphID() -> UInt64 {
        let fields = self.fields
        if fields.pointee.nextGraph == fields.pointee.graphBlockEnd {
            fields.pointee.nextGraph = GraphIdentifier.takeBlock()
            fields.pointee.graphBlockEnd = fields.pointee.nextGraph + (1 << 20)
        }
        fields.pointee.nextGraph += 1
        return fields.pointee.nextGraph
    }

    /// The state of the calling thread.
    static var current: ResolutionState {
        currentReference.takeUnretainedValue()
    }

    /// Runs `body` with the state of the calling thread, without retaining it (the thread keeps it).
    @inlinable @inline(__always)
    static func withCurrent<R>(_ body: (ResolutionState) throws -> R) rethrows -> R {
        try currentReference._withUnsafeGuaranteedRef(body)
    }

    @inlinable @inline(__always)
    static var currentReference: Unmanaged<ResolutionState> {
        if let pointer = weft_current_thread_state() {
            return Unmanaged<ResolutionState>.fromOpaque(pointer)
        }
        return makeCurrent()
    }

    /// Makes the calling thread's state: kept in a thread-local variable for reading, and under a pthread key
    /// whose destructor releases it when the thread ends.
    @usableFromInline static func makeCurrent() -> Unmanaged<ResolutionState> {
        let state = Unmanaged.passRetained(ResolutionState())
        pthread_setspecific(threadKey, state.toOpaque())
        weft_set_current_thread_state(state.toOpaque())
        return state
    }

    /// The path in flight, e.g. `["Garage", "Car"]` (see ``ResolutionPath``).
    var path: [String] { ResolutionPath(self).components }
}

#if canImport(Darwin)
    private let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            // A destructor of another key that runs later and resolves makes a new state.
            weft_set_current_thread_state(nil)
            Unmanaged<ResolutionState>.fromOpaque(pointer).release()
        }
        return key
    }()
#else
    private let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            // A destructor of another key that runs later and resolves makes a new state.
            weft_set_current_thread_state(nil)
            Unmanaged<ResolutionState>.fromOpaque(pointer).release()
        }
        return key
    }()
#endif

extension ResolutionState {
    /// Runs `body` with `entry` as the shared registration async code asked this thread for: while another thread
    /// builds it, the engine throws ``BuildInProgress`` for the task to suspend (see ``suspendsForBuildOf``).
    @inline(__always)
    func suspendingForBuild<R>(of entry: ObjectIdentifier?, _ body: () throws -> R) rethrows -> R {
        suspendsForBuildOf = entry
        defer { suspendsForBuildOf = nil }
        return try body()
    }
}
