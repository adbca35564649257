import WeftAtomics

/// What a registry lookup found, with the registration's configuration as it was at lookup time.
struct Lookup {
    /// Not retained: registrations outlive every resolve through their container (see ``Container``).
    let entry: EntryReference
    let policy: SharingPolicy
    let hasCallbacks: Bool
    /// Whether the registration was made for exactly the type asked for, with a factory that takes only
    /// the resolver: it can then be called and its instances read back without a dynamic cast.
    let exact: Bool
}

/// A per-thread cache of registry lookups, so that a resolve takes no lock and hashes no string.
///
/// Every slot records the registry version it was filled at; a slot from an older version is never used.
/// The version (one process-wide counter, see `WeftAtomics.h`) changes whenever a registration is added,
/// replaced or removed, or changes its scope or callbacks, so a cached lookup is always what the registry
/// would answer. Containers are told apart by serial number, never by address.
struct LookupCache {
    private struct Slot {
        var version: UInt64 = 0
        var container: UInt64 = 0
        var serviceType = ObjectIdentifier(Slot.self)
        var argumentsType = ObjectIdentifier(Slot.self)
        var name: String?
        var found: Lookup?
    }

    private static let capacity = 256
    private let slots: UnsafeMutablePointer<Slot>

    init() {
        slots = .allocate(capacity: Self.capacity)
        slots.initialize(repeating: Slot(), count: Self.capacity)
    }

    /// Frees the slots; called by the owning thread's state when the thread ends.
    func deallocate() {
        slots.deinitialize(count: Self.capacity)
        slots.deallocate()
    }

    /// The registration for `key` as seen from `container` (and its parents), or nil when there is none.
    @inline(__always)
    func find(_ key: ServiceKey, in container: Container) -> Lookup? {
        guard !key.hasOption else { return container.lookUp(key) }
        let version = weft_registry_version()
        var hash = UInt(truncatingIfNeeded: container.serial) &* 0x9E37_79B9_7F4A_7C15
        hash ^= UInt(bitPattern: ObjectIdentifier(key.serviceType)) &>> 3
        hash = (hash ^ (UInt(bitPattern: ObjectIdentifier(key.argumentsType)) &>> 4)) &* 0xBF58_476D_1CE4_E5B9
        if let name = key.name { hash ^= UInt(bitPattern: name.hashValue) }
        hash ^= hash &>> 29
        let first = Int(hash & UInt(Self.capacity - 1))
        let second = first ^ 1
        if let found = match(first, key, container, version) { return found }
        if let found = match(second, key, container, version) { return found }
        guard let found = container.lookUp(key) else { return nil }
        let slot = slots[first].version == version ? second : first
        slots[slot] = Slot(
            version: version,
            container: container.serial,
            serviceType: ObjectIdentifier(key.serviceType),
            argumentsType: ObjectIdentifier(key.argumentsType),
            name: key.name,
            found: found
        )
        return found
    }

    @inline(__always)
    private func match(_ index: Int, _ key: ServiceKey, _ container: Container, _ version: UInt64) -> Lookup? {
        let slot = slots + index
        guard slot.pointee.version == version, slot.pointee.container == container.serial,
            slot.pointee.serviceType == ObjectIdentifier(key.serviceType),
            slot.pointee.argumentsType == ObjectIdentifier(key.argumentsType),
            slot.pointee.name == key.name
        else { return nil }
        return slot.pointee.found
    }
}

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
    }

    private static let valueOffset = 32
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

    init() {
        assert(MemoryLayout<Record>.size <= Self.valueOffset && MemoryLayout<Any>.size <= Self.valueSize)
        chunks = .allocate(capacity: chunkCapacity)
    }

    /// Frees the memory; called by the owning thread's state when the thread ends (no record is left then).
    func deallocate() {
        for index in 0..<chunkCount { chunks[index].deallocate() }
        chunks.deallocate()
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
    }

    /// Pushes a record of `entry`'s instance `value`, kept as `T` (`fits(T.self)` must hold). Pass an `Any`
    /// as `value as Any`, or Swift opens it and keeps its content as its own type.
    @inline(__always)
    mutating func push<T>(
        _ value: T,
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
        destroyValue(of: self[index].type, at: slot(index) + Self.valueOffset)
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
