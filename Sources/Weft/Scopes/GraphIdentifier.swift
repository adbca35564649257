/// Identifies one object graph: the instances made by one top-level resolve.
///
/// Graph-scoped instances are shared within a graph. ``Container/withObjectGraph(_:closure:)`` resolves
/// several services into the same graph.
public struct GraphIdentifier: Hashable, Sendable, Identifiable {
    /// The graph's unique number.
    public let id: UInt64

    /// Makes a new, unique graph identifier.
    public init() {
        id = GraphIdentifier.next()
    }

    init(id: UInt64) {
        self.id = id
    }

    private static let counter = Lock()
    nonisolated(unsafe) private static var lastBlock: UInt64 = 0

    /// Identifiers come from blocks of 2^20 taken once per thread under a lock, so making one takes no lock.
    private static func next() -> UInt64 {
        ResolutionState.current.nextGraphID()
    }

    /// Takes a new block of identifiers for one thread.
    static func takeBlock() -> UInt64 {
        counter.withLock {
            lastBlock &+= 1
            return lastBlock << 20
        }
    }
}
