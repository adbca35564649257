#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One step of the path being resolved: the registration and how it was asked for.
struct ResolutionFrame {
    let entry: any ServiceEntryProtocol
    let key: ServiceKey
    /// True while the registration's factory runs; false while its `initCompleted` callbacks run.
    var inFactory: Bool
    /// For a deferred `initCompleted` run: the frames that led to the instance when it was made, ending
    /// with its own, so that error paths show where the instance came from.
    var origin: [ResolutionFrame]? = nil
}

/// An `initCompleted` run that waits until no factory of the graph is running any more.
struct PendingCompletion {
    let entry: any ServiceEntryProtocol
    let key: ServiceKey
    /// The frames when the instance was made, ending with its own.
    let origin: [ResolutionFrame]
    let instance: Any
    let resolver: Container
    /// Whether the instance is shared and claimed, so its claim is released once the callbacks ran.
    let claimed: Bool
}

/// The bookkeeping of the resolution running on one thread: the object graph, the path of
/// registrations in flight (for exact cycle detection and error paths), the instances the graph
/// made, and the `initCompleted` callbacks that wait for the graph's factories to return.
///
/// There is one per thread, made on first use and reused, so a resolve allocates nothing for it.
/// A resolve that a factory starts on the same thread (through any container) joins the graph.
final class ResolutionState {
    /// How many resolves are running on this thread (0 when idle).
    var depth = 0
    /// The graph being resolved; nil when idle.
    var graph: GraphIdentifier?
    /// The registrations in flight, outermost first.
    var frames: [ResolutionFrame] = []
    /// How many factories are running.
    var factoriesRunning = 0
    /// `initCompleted` callbacks waiting for the running factories to return.
    var pending: [PendingCompletion] = []
    /// Registrations that stored an instance in this graph, with the instance (kept alive until
    /// the graph completes, and discarded from storage when the graph fails).
    var made: [(entry: any ServiceEntryProtocol, instance: Any)] = []

    /// Shared registrations this resolution claimed and has not finished yet.
    var claims: [any ServiceEntryProtocol] = []
    /// Shared instances taken, unfinished, from another thread to break a wait cycle.
    var adopted: [any ServiceEntryProtocol] = []
    /// The registration this thread waits for (read by other threads under the coordinator's lock).
    var waitingFor: (any ServiceEntryProtocol)?

    /// The next graph identifier of this thread, and the end of its block.
    private var nextGraph: UInt64 = 0
    private var graphBlockEnd: UInt64 = 0

    init() {
        frames.reserveCapacity(16)
    }

    /// A process-wide unique graph identifier, without taking a lock (but once per 2^20 graphs).
    func nextGraphID() -> UInt64 {
        if nextGraph == graphBlockEnd {
            nextGraph = GraphIdentifier.takeBlock()
            graphBlockEnd = nextGraph + (1 << 20)
        }
        nextGraph += 1
        return nextGraph
    }

    /// The state of the calling thread.
    static var current: ResolutionState {
        if let pointer = pthread_getspecific(threadKey) {
            return Unmanaged<ResolutionState>.fromOpaque(pointer).takeUnretainedValue()
        }
        let state = ResolutionState()
        pthread_setspecific(threadKey, Unmanaged.passRetained(state).toOpaque())
        return state
    }

    /// The path of the frames in flight, e.g. `["Garage", "Car"]`; a deferred `initCompleted` run shows the
    /// path its instance was made along.
    var path: [String] {
        Self.path(of: frames)
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
