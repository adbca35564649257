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

    private static let counter = Lock()
    nonisolated(unsafe) private static var last: UInt64 = 0

    private static func next() -> UInt64 {
        counter.withLock {
            last &+= 1
            return last
        }
    }

    init(id: UInt64) {
        self.id = id
    }
}
