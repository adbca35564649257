#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One step of the path being resolved: the registration and how it was asked for.
struct ResolutionFrame {
    /// Not retained: a registration lives as long as its container, which a resolve in flight holds
    /// (see ``Container`` on retired registrations).
    let entry: EntryReference
    let key: ServiceKey
    /// True while the registration's factory runs; false while its `initCompleted` callbacks run.
    var inFactory: Bool
    /// For a deferred `initCompleted` run: the frames that led to the instance when it was made, ending
    /// with its own, so that error paths show where the instance came from.
    var origin: [ResolutionFrame]? = nil
}

/// The registrations in flight on one thread, outermost first: a stack in memory of its own, so that a push
/// or a pop is a store and a counter (an array checks uniqueness and bounds on each).
struct FrameStack {
    private var base: UnsafeMutablePointer<ResolutionFrame>
    private var capacity: Int
    /// How many frames are on the stack.
    private(set) var count = 0

    init() {
        capacity = 16
        base = .allocate(capacity: capacity)
    }

    /// Frees the memory; called by the owning thread's state when the thread ends.
    mutating func deallocate() {
        removeAll()
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The innermost frame.
    var last: ResolutionFrame? { count == 0 ? nil : base[count - 1] }

    /// The frame at `index` (0 is the outermost).
    subscript(index: Int) -> ResolutionFrame {
        get { base[index] }
        nonmutating _modify { yield &base[index] }
    }

    @inline(__always)
    mutating func push(_ frame: ResolutionFrame) {
        if count == capacity { grow() }
        (base + count).initialize(to: frame)
        count += 1
    }

    @inline(__always)
    mutating func pop() {
        count -= 1
        (base + count).deinitialize(count: 1)
    }

    mutating func removeAll() {
        base.deinitialize(count: count)
        count = 0
    }

    /// The index of the outermost frame of `entry`, if it is on the stack.
    @inline(__always)
    func firstIndex(of entry: EntryReference) -> Int? {
        var index = 0
        while index < count {
            if base[index].entry === entry { return index }
            index += 1
        }
        return nil
    }

    /// The frames as an array (for paths and for deferred callbacks).
    var array: [ResolutionFrame] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<ResolutionFrame>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}

/// An `initCompleted` run that waits until no factory of the graph is running any more.
struct PendingCompletion {
    let entry: _ServiceEntryBase
    let key: ServiceKey
    /// The frames when the instance was made, ending with its own.
    let origin: [ResolutionFrame]
    let instance: Any
    let resolver: Container
    /// Whether the instance is shared and claimed, so its claim is released once the callbacks ran.
    let claimed: Bool
}

/// An instance the current top-level resolve made or took from a shared scope, kept alive until the
/// resolve ends.
struct MadeInstance {
    let entry: EntryReference
    let graph: GraphIdentifier
    let instance: Any
    /// Whether the instance is (also) in the registration's storage: shared scopes, and graph scope
    /// when the graph can be used again later (see ``ResolutionState/Fields/privateGraph``).
    var inStorage: Bool
    let policy: SharingPolicy
    /// A copy of the instance as the type it was asked for, so that it can be read back as that type
    /// without a dynamic cast; `nil` when it was asked for through a different type.
    let typed: TypedCell?
}

/// The bookkeeping of the resolution running on one thread: the object graph, the path of
/// registrations in flight (for exact cycle detection and error paths), the instances the graph
/// made, and the `initCompleted` callbacks that wait for the graph's factories to return.
///
/// There is one per thread, made on first use and reused, so a resolve allocates nothing for it.
/// A resolve that a factory starts on the same thread (through any container) joins the graph.
/// Its fields live behind a pointer, so the hot path pays no exclusivity checks for them.
final class ResolutionState {
    struct Fields {
        var depth = 0
        var graph: GraphIdentifier?
        /// The graph the current top-level resolve made and that nothing outside can name yet: its
        /// graph-scoped instances live only in ``made``. Nil once the graph escaped (see ``graphEscapes()``).
        var privateGraph: GraphIdentifier?
        var frames = FrameStack()
        var factoriesRunning = 0
        var pending: [PendingCompletion] = []
        var made: [MadeInstance] = []
        var claims: [_ServiceEntryBase] = []
        var adopted: [_ServiceEntryBase] = []
        /// Typed copies of the graph-scoped instances in ``made``.
        var cells = TypedCells()
        /// The container the top-level resolve was asked of.
        var topContainer: ObjectIdentifier?
        /// Other containers resolved through during the top-level resolve, kept alive until it ends
        /// because ``made`` and ``frames`` refer to their registrations without retaining them.
        var keptContainers: [Container] = []
        var nextGraph: UInt64 = 0
        var graphBlockEnd: UInt64 = 0
    }

    let fields: UnsafeMutablePointer<Fields>
    /// This thread's cache of registry lookups.
    let lookups = LookupCache()
    /// The registration this thread waits for (read by other threads under the coordinator's lock).
    var waitingFor: (_ServiceEntryBase)?

    init() {
        fields = .allocate(capacity: 1)
        fields.initialize(to: Fields())
        fields.pointee.made.reserveCapacity(16)
    }

    deinit {
        lookups.deallocate()
        fields.pointee.cells.deallocate()
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

    /// Instances the graph made or used from a shared scope (kept alive until the graph completes, and
    /// discarded from storage when the graph fails).
    var made: [MadeInstance] {
        _read { yield fields.pointee.made }
        _modify { yield &fields.pointee.made }
    }

    /// Shared registrations this resolution claimed and has not finished yet.
    var claims: [_ServiceEntryBase] {
        _read { yield fields.pointee.claims }
        _modify { yield &fields.pointee.claims }
    }

    /// Shared instances taken, unfinished, from another thread to break a wait cycle.
    var adopted: [_ServiceEntryBase] {
        _read { yield fields.pointee.adopted }
        _modify { yield &fields.pointee.adopted }
    }

    /// A process-wide unique graph identifier, without taking a lock (but once per 2^20 graphs).
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
    @inline(__always)
    static func withCurrent<R>(_ body: (ResolutionState) throws -> R) rethrows -> R {
        try currentReference._withUnsafeGuaranteedRef(body)
    }

    @inline(__always)
    private static var currentReference: Unmanaged<ResolutionState> {
        if let pointer = pthread_getspecific(threadKey) {
            return Unmanaged<ResolutionState>.fromOpaque(pointer)
        }
        return makeCurrent()
    }

    private static func makeCurrent() -> Unmanaged<ResolutionState> {
        let state = Unmanaged.passRetained(ResolutionState())
        pthread_setspecific(threadKey, state.toOpaque())
        return state
    }

    /// The path of the frames in flight, e.g. `["Garage", "Car"]`; a deferred `initCompleted` run shows the
    /// path its instance was made along.
    var path: [String] {
        Self.path(of: frames.array)
    }

    private static func path(of frames: [ResolutionFrame]) -> [String] {
        var result: [String] = []
        for frame in frames {
            if let origin = frame.origin {
                result = path(of: origin)
            } else {
                result.append(frame.key.pathComponent)
            }
        }
        return result
    }
}

#if canImport(Darwin)
    private let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            Unmanaged<ResolutionState>.fromOpaque(pointer).release()
        }
        return key
    }()
#else
    private let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<ResolutionState>.fromOpaque(pointer).release()
        }
        return key
    }()
#endif
