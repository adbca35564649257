/// The instances that the top-level resolves running on this thread made or took from a shared scope, kept
/// alive until their resolve ends: a stack of records, each with its instance in place.
///
/// A top-level resolve works from ``mark`` up and, when it ends, pops back to its mark, releasing each
/// instance in place. Releasing one may run a deinit that starts another top-level resolve on this thread:
/// that one marks the top of the stack and works above the records being released, so completing a graph
/// moves nothing out of the thread's state and back.
///
/// A slot holds a ``Record`` and then the instance: as the type it was asked for, when a typed lookup made
/// it in graph scope (read back without a dynamic cast, about 80 ns), otherwise as `Any`. Slots are kept in
/// chunks that never move, so an instance stays where it was put while it is read or released, whatever a
/// nested resolve pushes meanwhile; the memory is kept for reuse.
struct MadeRecords {
    /// What the resolve knows of one instance. A trivial value: recording one costs no reference counting.
    struct Record {
        let entry: EntryReference
        let graph: GraphIdentifier
        /// The type the instance is kept as in its slot: the type it was asked for, or `Any`.
        let type: Any.Type
        /// Whether the instance is (also) in the registration's storage: shared scopes, and graph scope when
        /// the graph can be used again later (see ``ResolutionState/Fields/privateGraph``).
        var inStorage: Bool
        let policy: SharingPolicy
        /// For a graph-scoped instance, where the registrations its build used are in the log of uses (see
        /// ``logUse(_:)``): from `usesFrom` up to `usesTo`. Empty for other instances.
        var usesFrom: Int32 = 0
        var usesTo: Int32 = 0
    }

    private static let valueOffset = 48
    /// The largest instance (in bytes) kept as its own type; a larger one is kept as `Any`.
    private static let valueSize = 64
    private static let valueAlignment = 16
    private static let slotSize = valueOffset + valueSize
    private static let chunkShift = 5
    private static let slotsPerChunk = 1 << chunkShift

    /// The chunks of slots, each `slotsPerChunk` slots.
    private var chunks: UnsafeMutablePointer<UnsafeMutableRawPointer>
    private var chunkCapacity = 4
    private var chunkCount = 0
    /// How many slots hold a record.
    var count = 0
    /// Where the records of the current top-level resolve start.
    var mark = 0
    /// How many records from ``mark`` on have their instance in the registration's storage too.
    var stored = 0

    /// The registrations that graph-scoped builds of the current top-level resolve used, in the order they were
    /// used (a nested build's between those of the build around it): a singleton that reuses such an instance
    /// later in the graph is made with all of them too (see ``Container/recordUses(ofMadeAt:state:)``).
    private(set) var uses = UseLog(capacity: 16)

    /// How many uses ``uses`` holds.
    var usesCount: Int {
        @inline(__always) get { uses.count }
    }

    /// A registration and a graph, as the index knows them.
    private struct MadeKey: Hashable {
        let entry: UnsafeMutableRawPointer
        let graph: GraphIdentifier
    }

    /// The most records of one top-level resolve searched by a scan; past it, ``index`` answers.
    private static let scanLimit = 32
    /// Where each registration's instance in each graph was last recorded, for the records from ``mark`` up to
    /// ``indexedUpTo``; -1 when it belongs to an earlier top-level resolve.
    private var index: [MadeKey: Int] = [:]
    private var indexedUpTo = -1

    init() {
        assert(MemoryLayout<Record>.size <= Self.valueOffset && MemoryLayout<Any>.size <= Self.valueSize)
        chunks = .allocate(capacity: chunkCapacity)
    }

    /// Frees the memory; called by the owning thread's state when the thread ends (no record is left then).
    func deallocate() {
        for index in 0..<chunkCount { chunks[index].deallocate() }
        chunks.deallocate()
        uses.deallocate()
    }

    /// Whether the current top-level resolve has records.
    var isEmpty: Bool { count == mark }

    /// Whether a value of type `T` is kept as itself (otherwise as `Any`).
    @inline(__always)
    static func fits<T>(_: T.Type) -> Bool {
        MemoryLayout<T>.size <= valueSize && MemoryLayout<T>.alignment <= valueAlignment
    }

    @inline(__always)
    private func slot(_ index: Int) -> UnsafeMutableRawPointer {
        chunks[index &>> Self.chunkShift] + (index & (Self.slotsPerChunk - 1)) &* Self.slotSize
    }

    /// The record at `index`.
    subscript(index: Int) -> Record {
        @inline(__always) get { slot(index).assumingMemoryBound(to: Record.self).pointee }
    }

    /// Marks the instance at `index` as kept in its registration's storage too.
    mutating func setInStorage(at index: Int) {
        slot(index).assumingMemoryBound(to: Record.self).pointee.inStorage = true
        stored += 1
    }

    /// Starts the records of a top-level resolve at the top of the stack.
    @inline(__always)
    mutating func markTop() {
        mark = count
        stored = 0
        indexedUpTo = -1
        // The uses of an earlier top-level resolve are read by nobody any more: its builds have all returned.
        uses.removeAll()
    }

    /// Adds `entry` to the log of uses: a graph-scoped build in flight uses it.
    @inline(__always)
    mutating func logUse(_ entry: EntryReference) {
        uses.append(entry)
    }

    /// The registration at `position` in the log of uses.
    func use(at position: Int) -> EntryReference { uses[position] }

    /// The uses the build of the instance at `index` logged (see ``setUses(at:from:)``).
    func usesRange(at index: Int) -> Range<Int> {
        let record = self[index]
        return Int(record.usesFrom)..<Int(record.usesTo)
    }

    /// Notes that the build of the instance at `index` used what the log of uses holds from `first` on.
    @inline(__always)
    mutating func setUses(at index: Int, from first: Int) {
        guard uses.count > first else { return }
        let record = slot(index).assumingMemoryBound(to: Record.self)
        record.pointee.usesFrom = Int32(first)
        record.pointee.usesTo = Int32(uses.count)
    }

    /// Where the current top-level resolve last recorded `entry`'s instance in `graph`.
    @inline(__always)
    mutating func lastIndex(of entry: EntryReference, in graph: GraphIdentifier) -> Int? {
        guard count - mark > Self.scanLimit else {
            var index = count
            while index > mark {
                index -= 1
                let record = self[index]
                if record.entry === entry, record.graph == graph { return index }
            }
            return nil
        }
        return indexedLastIndex(of: entry, in: graph)
    }

    /// ``lastIndex(of:in:)`` through ``index``, brought up to date first: a wide graph looks up every instance
    /// it made, and scanning for each would make it quadratic.
    private mutating func indexedLastIndex(of entry: EntryReference, in graph: GraphIdentifier) -> Int? {
        // Records below `indexedUpTo` may have been released and their slots reused since (a new top-level
        // resolve, see `markTop()`): then the index starts over.
        if indexedUpTo < mark || indexedUpTo > count {
            index.removeAll(keepingCapacity: true)
            indexedUpTo = mark
        }
        while indexedUpTo < count {
            let record = self[indexedUpTo]
            index[MadeKey(entry: record.entry.toOpaque(), graph: record.graph)] = indexedUpTo
            indexedUpTo += 1
        }
        return index[MadeKey(entry: entry.toOpaque(), graph: graph)]
    }

    /// Pushes a record of `entry`'s instance `value`, kept as `T` (`fits(T.self)` must hold). Pass an `Any`
    /// as `value as Any`, or Swift opens it and keeps its content as its own type.
    @inline(__always)
    mutating func push<T>(
        _ value: consuming T,
        entry: EntryReference,
        graph: GraphIdentifier,
        inStorage: Bool,
        policy: SharingPolicy
    ) {
        if count == chunkCount &<< Self.chunkShift { addChunk() }
        let slot = slot(count)
        slot.bindMemory(to: Record.self, capacity: 1).initialize(
            to: Record(entry: entry, graph: graph, type: T.self, inStorage: inStorage, policy: policy)
        )
        // One value-witness call (`initializeMemory(as:repeating:count:)` loops generically).
        (slot + Self.valueOffset).bindMemory(to: T.self, capacity: 1).initialize(to: value)
        count += 1
        if inStorage { stored += 1 }
    }

    /// The instance at `index` as `T`, the type it is kept as.
    @inline(__always)
    func load<T>(at index: Int, as _: T.Type) -> T {
        (slot(index) + Self.valueOffset).assumingMemoryBound(to: T.self).pointee
    }

    /// The instance at `index` as `Any`.
    func erased(at index: Int) -> Any {
        let type = self[index].type
        if type == Any.self { return load(at: index, as: Any.self) }
        return erasedValue(of: type, at: slot(index) + Self.valueOffset)
    }

    /// Releases the instance at `index`, in place: the slot stays taken until the caller lowers ``count``,
    /// so a resolve that a deinit starts meanwhile pushes above it.
    func destroy(at index: Int) {
        let type = self[index].type
        let address = slot(index) + Self.valueOffset
        // A class instance, or an existential of one (the usual service): its reference released directly, where
        // the generic path, unspecialised, moves the value out and destroys it through two value-witness calls.
        if TypeKind.holdsOneReference(type) { return address.load(as: Unmanaged<AnyObject>.self).release() }
        destroyValue(of: type, at: address)
    }

    private mutating func addChunk() {
        if chunkCount == chunkCapacity {
            let larger = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: chunkCapacity * 2)
            larger.moveInitialize(from: chunks, count: chunkCount)
            chunks.deallocate()
            chunks = larger
            chunkCapacity *= 2
        }
        chunks[chunkCount] = .allocate(
            byteCount: Self.slotSize * Self.slotsPerChunk,
            alignment: Self.valueAlignment
        )
        chunkCount += 1
    }
}

private func erasedValue<T>(of _: T.Type, at address: UnsafeMutableRawPointer) -> Any {
    address.assumingMemoryBound(to: T.self).pointee
}

private func destroyValue<T>(of _: T.Type, at address: UnsafeMutableRawPointer) {
    // Moving out and dropping the value is one value-witness call; `deinitialize(count:)` is a generic loop.
    _ = address.assumingMemoryBound(to: T.self).move()
}
