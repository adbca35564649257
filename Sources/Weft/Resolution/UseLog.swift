/// The registrations used while graph-scoped instances were being made, in the order they were used: what a shared
/// instance that reuses such an instance later in the graph records as its dependencies too, so that replacing or
/// resetting one of them discards it (see `Container+UseRecording.swift` and `Async/AsyncGraph+Uses.swift`).
///
/// One type for both engines. A thread's resolve keeps one log in its ``MadeRecords``: builds on a thread nest, so
/// a build's uses are the stretch of the log from where it started to where it returned, nested builds' included,
/// which its record notes. An async factory's build keeps a log of its own (``AsyncBuild/uses``): child tasks of
/// one factory build at the same time, so their uses cannot share one stretch. A synchronous part of an async graph
/// copies the stretch it logged on its thread into the build it ran for.
///
/// Registrations are not retained: a resolve in flight keeps every registration it found (its container, or its
/// graph's activity record, holds them) until the builds that logged them have all returned. Memory of its own, so
/// that logging one use is a store and a counter (an array checks uniqueness and bounds on each); the owner calls
/// ``deallocate()``. Empty, it allocates nothing: most async builds log no use.
struct UseLog {
    private var base: UnsafeMutablePointer<EntryReference>?
    private var capacity = 0
    /// How many uses the log holds.
    private(set) var count = 0

    /// An empty log; `capacity` uses fit before it allocates again (none are allocated for 0).
    init(capacity: Int = 0) {
        if capacity > 0 {
            base = .allocate(capacity: capacity)
            self.capacity = capacity
        }
    }

    /// Frees the memory. The log is not used afterwards.
    func deallocate() {
        base?.deallocate()
    }

    /// Whether the log holds no use.
    var isEmpty: Bool { count == 0 }

    /// Adds `entry`.
    @inline(__always)
    mutating func append(_ entry: EntryReference) {
        if count == capacity { grow() }
        (base.unsafelyUnwrapped + count).initialize(to: entry)
        count &+= 1
    }

    /// Adds the uses of `other` in `range`, in order.
    mutating func append(contentsOf other: UseLog, _ range: Range<Int>) {
        for position in range { append(other[position]) }
    }

    /// The use at `position`.
    subscript(position: Int) -> EntryReference {
        @inline(__always) get { base.unsafelyUnwrapped[position] }
    }

    /// Calls `body` with each use, in order.
    func forEach(_ body: (EntryReference) throws -> Void) rethrows {
        for position in 0..<count { try body(self[position]) }
    }

    /// Forgets every use, keeping the memory for the next ones.
    @inline(__always)
    mutating func removeAll() {
        count = 0
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<EntryReference>.allocate(capacity: Swift.max(4, capacity * 2))
        if let base {
            larger.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = larger
        capacity = Swift.max(4, capacity * 2)
    }
}
