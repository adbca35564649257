import WeftAtomics

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// Where Synchronization's `Atomic` is newer than Weft's deployment floors (Apple platforms), the fields below that
// are atomic elsewhere are guarded by a lock. `-Xswiftc -DWEFT_LOCKED_ASYNC_STATE` selects that path on Linux too,
// so that CI runs the tests through it (.ci/run); the same holds for AsyncGraph.swift and
// AsyncContext+Resolution.swift.
#if !canImport(Darwin)
    import Synchronization
#endif

/// One step of an async resolution's path: a registration whose factory is running.
struct AsyncStep {
    let entry: _ServiceEntryBase
    let key: ServiceKey
    /// The build other tasks wait for, when the instance is shared (graph or container); nil for a transient one.
    let build: AsyncBuild?
    /// Whether the instance outlives the graph (`.container`, `.scoped` in its scope, custom scopes).
    let shared: Bool
}

/// What an async factory's resolver carries: the graph and the steps that led to the factory, as a chain
/// from the innermost step outwards. Immutable while in use; a factory's nested resolves get a context of one
/// more step, so concurrent child tasks each have their own path.
///
/// A context that nothing refers to any more once its factory has returned (the factory kept no resolver, and
/// started no task that still runs) becomes one of the thread's spares (see ``recycle(_:)``), which the next
/// step takes instead of allocating: every nested async resolve needs one, and the factory rarely keeps it.
@usableFromInline final class AsyncContext: @unchecked Sendable {
    /// The top-level context of the resolution (this one, for a top-level context), which holds what belongs to the
    /// resolution rather than to a step: its graph, its container, whether it has ended, its activity record. Not
    /// retained: every context holds the top-level one through ``outer`` (see ``outerOwner``). Meaningless while
    /// the context is a spare.
    @exclusivity(unchecked) unowned(unsafe) var rootReference: AsyncContext?
    /// For a top-level context: the resolution's graph, made by the first request that needs one (see
    /// ``unretainedGraph``), so that a resolve whose requests are all transient makes none. Retained; set once per
    /// resolution, possibly by a child task of one of its factories: atomic where `Atomic` is available at Weft's
    /// deployment floors, guarded by ``resolutionLock`` on Apple platforms.
    #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
        /// Guards ``graphOwner``, ``resolutionEnded`` and ``factoryReturned`` where they are not atomic. A lock of its
        /// own, not ``AsyncBuilds/lock``, which code that reads the graph may hold: nothing is done under this one but
        /// reading or setting those fields, so it can be taken inside any other.
        static let resolutionLock = Lock()
        @exclusivity(unchecked) var graphOwner: AsyncGraph?
    #else
        let graphOwner = Atomic<UnsafeMutableRawPointer?>(nil)
    #endif
    /// For a top-level context: whether its resolve has finished (see ``isLive``), set once, as ``graphOwner``.
    #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
        @exclusivity(unchecked) var resolutionEnded = false
    #else
        let resolutionEnded = Atomic<Bool>(false)
    #endif
    /// For a top-level context: its resolution's activity record, inside the engine from the resolve's start to its
    /// end, across suspension points and threads, so that no registration a step refers to (by identity) is
    /// released meanwhile. Taken when the context first serves as a top-level one and kept for its whole life, so
    /// that a spare starts again without looking for a record.
    @exclusivity(unchecked) var activity: UnsafeMutablePointer<weft_activity>?
    /// For a top-level context: whether its resolution records for a verification (see ``isRecording``).
    @exclusivity(unchecked) private var recordsResolution = false
    /// The container the resolution started from, retained by the top-level context (nil in every other): the
    /// resolvers handed to the graph's factories refer to it unretained (see ``AsyncResolver``), and any of them
    /// that is still referred to keeps its context, and through ``outerOwner`` the top-level one, alive.
    @exclusivity(unchecked) var containerOwner: Container?
    /// Whether the factory this context was made for has returned: a resolver the factory kept then starts resolves
    /// of its own, as `container.async` does. Read on every nested resolve: an atomic flag where `Atomic` is
    /// available at Weft's deployment floors (not on Apple platforms, where ``resolutionLock`` guards it), so
    /// that nested resolves take no process-wide lock to read it.
    #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
        @exclusivity(unchecked) private var factoryReturned = false
    #else
        private let factoryReturned = Atomic<Bool>(false)
    #endif
    /// The innermost step, as the synchronous engine's frames hold theirs (``ResolutionStep``, a trivial value):
    /// nil for a top-level resolve. Beside it, in fields of their own (a stored optional struct with references is
    /// copied and destroyed through its value witnesses), what else the path and the graph read of it: its name (a
    /// name is rare, and a nil one costs nothing to set and clear), as ``FrameStack`` keeps a frame's name beside
    /// the stack; its build; whether it is shared. The registration is not retained: the graph's activity record
    /// keeps every registration it found until the graph ends, and a context is read only while its graph runs
    /// (see ``isLive``). A step with a build of its own makes that build the innermost one (``innermostBuild``),
    /// which holds it: a flag says so, rather than a second reference to retain and release on every build.
    @exclusivity(unchecked) private(set) var step: ResolutionStep?
    @exclusivity(unchecked) private var stepName: String?
    @exclusivity(unchecked) private var stepHasBuild = false
    @exclusivity(unchecked) private var stepShared = false
    /// The steps before it, not retained: while the factory of this context's step runs, its caller holds the
    /// outer context. Should something still refer to this context once that factory has returned, ``outerOwner``
    /// retains it (see ``recycle(_:)``).
    @exclusivity(unchecked) private(set) unowned(unsafe) var outer: AsyncContext?
    /// ``outer``, retained, once the factory has returned while something (a kept resolver, a task still running)
    /// refers to this context.
    @exclusivity(unchecked) private var outerOwner: AsyncContext?
    /// For a spare, the next spare (stale once taken): the thread's list retains each, so that neither taking nor
    /// giving a spare retains or releases the others.
    @exclusivity(unchecked) var nextSpare: UnsafeMutableRawPointer?
    /// The innermost build in flight on the path (other tasks' waits are checked against the path's builds).
    @exclusivity(unchecked) private(set) var innermostBuild: AsyncBuild?
    /// One bit per registration on the path (see ``pathBit(of:)``): a registration whose bit is clear is not on
    /// the path, which every nested resolve asks (the cycle check) and which then needs no walk along the steps.
    /// Every bit is set while the resolution records, so that the test sends each request to the checks that note it.
    @exclusivity(unchecked) private(set) var pathBits: UInt64 = 0
    /// Whether a step on the path makes an instance that outlives the graph (see ``sharedBuilder``).
    @exclusivity(unchecked) private var hasSharedStep = false
    /// Whether ``innermostBuild`` makes a graph-scoped instance: what a request uses meanwhile is logged in it (see
    /// ``AsyncBuild/uses``).
    @exclusivity(unchecked) private(set) var logsUses = false

    init() {}

    deinit {
        #if !(canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE)
            if let graph = graphOwner.load(ordering: .relaxed) { Unmanaged<AsyncGraph>.fromOpaque(graph).release() }
        #endif
        if let activity {
            // A top-level context released without its resolve's end (a test's): the record still leaves.
            if weft_activity_is_inside(activity) != 0 { weft_activity_leave(activity) }
            weft_activity_give_back(activity)
        }
    }

    var graph: AsyncGraph { unretainedGraph.takeUnretainedValue() }

    /// Calls `body` with ``innermostBuild``, if there is one, neither retained nor released: this context holds it.
    @inline(__always)
    func withInnermostBuild(_ body: (AsyncBuild) -> Void) {
        guard let build = innermostBuild.map(Unmanaged.passUnretained) else { return }
        build._withUnsafeGuaranteedRef(body)
    }

    /// Calls `body` with the graph, neither retained nor released: the top-level context owns it while any context
    /// of the graph is in use, and a retained reference would retain the graph's lock with it.
    @inline(__always)
    func withGraph<Result>(_ body: (AsyncGraph) throws -> Result) rethrows -> Result {
        try unretainedGraph._withUnsafeGuaranteedRef(body)
    }

    /// The graph, unretained (see ``withGraph(_:)``): made now when the resolution has none yet.
    var unretainedGraph: Unmanaged<AsyncGraph> {
        unretainedRoot._withUnsafeGuaranteedRef { $0.resolutionGraph() }
    }

    /// Whether the resolution records for a verification (see ``GraphRecorder``; a request need not ask, see
    /// ``pathBits``), read from the top-level context without making the graph.
    var isRecording: Bool { unretainedRoot._withUnsafeGuaranteedRef { $0.recordsResolution } }

    /// The top-level context, unretained: every context holds it (see ``rootReference``).
    @inline(__always)
    private var unretainedRoot: Unmanaged<AsyncContext> {
        Unmanaged.passUnretained(rootReference.unsafelyUnwrapped)
    }

    /// The registration of the innermost step; nil for a top-level resolve.
    var stepRegistration: _ServiceEntryBase? { step?.entry.takeUnretainedValue() }

    /// Whether this context has no step of its own: a top-level context, its request's step in a context of its own.
    /// Tested without retaining and releasing the registration as reading it does.
    var hasNoStep: Bool { step == nil }

    /// The key of the innermost step, as the path shows it (its type and name), for a step whose factory takes no
    /// runtime arguments.
    var stepKey: ServiceKey {
        ServiceKey(serviceType: step.unsafelyUnwrapped.serviceType, argumentsType: noArguments, name: stepName)
    }

    /// The context of `step`'s factory, one step longer than this one: a spare of this thread's when there is one.
    func appending(_ step: AsyncStep) -> AsyncContext {
        appending(entry: step.entry, key: step.key, build: step.build, shared: step.shared)
    }

    /// ``appending(_:)`` with the step's parts.
    func appending(entry: _ServiceEntryBase, key: ServiceKey, build: AsyncBuild?, shared: Bool) -> AsyncContext {
        let context = Self.takeSpare() ?? AsyncContext()
        // A new or spare context's name and build are clear: one left clear (nil) is not set, which would release
        // the nil it replaces. Every other field is set.
        context.rootReference = rootReference
        if let innermost = build ?? innermostBuild { context.innermostBuild = innermost }
        context.pathBits = pathBits | Self.pathBit(of: entry)
        context.hasSharedStep = hasSharedStep || shared
        context.logsUses = build == nil ? logsUses : !shared
        context.step = ResolutionStep(entry, key: key)
        if let name = key.name { context.stepName = name }
        context.stepHasBuild = build != nil
        context.stepShared = shared
        context.outer = self
        return context
    }

    /// Makes this context (new, or a spare with its last step's fields) the top-level one of a resolve of `container`.
    func startResolution(container: Container) {
        rootReference = self
        containerOwner = container
        recordsResolution = false
        step = nil
        stepHasBuild = false
        stepShared = false
        outer = nil
        pathBits = 0
        hasSharedStep = false
        logsUses = false
    }

    /// Makes this top-level context's resolution, just started, record for a verification (see ``pathBits``).
    func startRecording() { (recordsResolution, pathBits) = (true, ~0) }

    /// Makes this top-level context, not yet handed to any factory, the context of the request's own step as
    /// well: `entry`'s, a transient registration asked for as `key`, whose factory then gets it. The resolve needs
    /// no context of its own beside its step's.
    @inline(__always)
    func beginTopLevelStep(entry: _ServiceEntryBase, key: ServiceKey) {
        pathBits |= Self.pathBit(of: entry)
        step = ResolutionStep(entry, key: key)
        if let name = key.name { stepName = name }
    }

    /// The bit of `entry` in ``pathBits``: from its address, past the bits an allocation's alignment keeps zero.
    static func pathBit(of entry: _ServiceEntryBase) -> UInt64 {
        let address = UInt(bitPattern: ObjectIdentifier(entry))
        return 1 &<< UInt64((address &>> 4) & 63)
    }

    /// The contexts of the steps, innermost first (each with its step). A loop rather than a lazy sequence: this
    /// is read on every nested resolve, and the lazy sequence's generic code is not specialised here.
    private func forEachStepInward(_ body: (AsyncContext) -> Bool) {
        var current: AsyncContext? = self
        while let context = current {
            if context.step != nil, !body(context) { return }
            current = context.outer
        }
    }

    /// The path for messages: `Garage -> Car` (see ``ResolutionPath``).
    var path: [String] { ResolutionPath(self).components }

    /// The builds in flight on this path.
    var builds: [AsyncBuild] {
        var builds: [AsyncBuild] = []
        forEachStepInward {
            if $0.stepHasBuild, let build = $0.innermostBuild { builds.append(build) }
            return true
        }
        return builds
    }

    /// The context of the innermost step on the path whose instance outlives the graph (`.container`, a scope's
    /// `.scoped`, custom scopes): what the three views below read.
    private var sharedContext: AsyncContext? {
        guard hasSharedStep else { return nil }
        var found: AsyncContext?
        forEachStepInward {
            if $0.stepShared { found = $0 }
            return found == nil
        }
        return found
    }

    /// The innermost registration on the path whose instance outlives the graph.
    var sharedBuilder: _ServiceEntryBase? { sharedContext?.stepRegistration }

    /// Whether a step on the path makes an instance that outlives the graph: what a request makes or takes then
    /// is that instance's dependency.
    var buildsShared: Bool { hasSharedStep }

    /// ``sharedBuilder``, with its step as the path writes it.
    var sharedStep: (entry: _ServiceEntryBase, step: String)? {
        guard let context = sharedContext, let entry = context.stepRegistration else { return nil }
        return (entry, context.stepPathComponent)
    }

    /// The build of ``sharedBuilder``'s instance.
    var sharedBuild: AsyncBuild? {
        guard let context = sharedContext, context.stepHasBuild else { return nil }
        return context.innermostBuild
    }

    /// This context's step as the path writes it: `Car`, `Engine["v8"]`.
    var stepPathComponent: String {
        ServiceKey(serviceType: step.unsafelyUnwrapped.serviceType, argumentsType: Void.self, name: stepName)
            .pathComponent
    }

    /// Makes this context, whose factory has returned while something else still refers to it, retain its outer
    /// context (see ``outerOwner``).
    func holdOuter() { outerOwner = outer }

    /// Clears this context, which nothing else refers to, for the next step to take it as a spare (see
    /// ``recycle(_:)``). Only what holds references, or what the next step may leave as it is, is cleared: whoever
    /// takes the spare sets every other field (see ``appending(entry:key:build:shared:)`` and
    /// ``startResolution(container:)``). A field already clear is left alone, so that clearing it releases nothing.
    @inline(__always)
    func clearStep() {
        if stepName != nil { stepName = nil }
        if innermostBuild != nil { innermostBuild = nil }
        #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
            factoryReturned = false
        #else
            factoryReturned.store(false, ordering: .relaxed)
        #endif
    }

    /// Notes that the factory this context was made for has returned (or thrown).
    func factoryDidReturn() {
        #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
            Self.resolutionLock.withLock { factoryReturned = true }
        #else
            factoryReturned.store(true, ordering: .releasing)
        #endif
    }

    /// Whether resolves through this context still belong to its factory's call and graph. Either answer is right
    /// for a resolve that races the factory's return: it started before, or after.
    var isLive: Bool {
        #if canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE
            Self.resolutionLock.withLock {
                !factoryReturned && !unretainedRoot._withUnsafeGuaranteedRef { $0.resolutionEnded }
            }
        #else
            !factoryReturned.load(ordering: .acquiring)
                && !unretainedRoot._withUnsafeGuaranteedRef { $0.resolutionEnded.load(ordering: .acquiring) }
        #endif
    }
}
