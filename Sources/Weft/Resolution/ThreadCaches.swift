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

/// A typed copy of a value, in memory that does not move while the value is in it.
struct TypedCell {
    /// The type the value was stored as.
    let type: Any.Type
    let address: UnsafeMutableRawPointer

    /// The value; `T` must be the type it was stored as.
    @inline(__always)
    func load<T>(as _: T.Type) -> T {
        address.assumingMemoryBound(to: T.self).pointee
    }

    /// A copy of the value as `Any` (off the hot path).
    var erased: Any {
        erasedValue(of: self.type, at: address)
    }
}

/// Per-thread memory for typed copies of graph-scoped instances: lets a graph hand out an instance it
/// already made as the type it was asked for, without a dynamic cast (about 80 ns) and without allocating.
/// Cells are taken in order and all given back when the top-level resolve ends; memory is kept for reuse.
struct TypedCells {
    private static let cellSize = 64
    private static let cellAlignment = 16
    private static let cellsPerChunk = 64
    private var chunks: [UnsafeMutableRawPointer] = []
    private var used = 0

    /// Copies `value` into a free cell; nil when the type is too large for a cell.
    mutating func store<T>(_ value: T) -> TypedCell? {
        guard MemoryLayout<T>.size <= Self.cellSize, MemoryLayout<T>.alignment <= Self.cellAlignment else {
            return nil
        }
        if used == chunks.count * Self.cellsPerChunk {
            chunks.append(
                .allocate(byteCount: Self.cellSize * Self.cellsPerChunk, alignment: Self.cellAlignment)
            )
        }
        let address = chunks[used / Self.cellsPerChunk] + (used % Self.cellsPerChunk) * Self.cellSize
        used += 1
        // One value-witness call (`initializeMemory(as:repeating:count:)` loops generically).
        address.bindMemory(to: T.self, capacity: 1).initialize(to: value)
        return TypedCell(type: T.self, address: address)
    }

    /// Destroys the value in `cell` (which may run a deinit, when the cell held the only reference).
    func destroy(_ cell: TypedCell) {
        destroyValue(of: cell.type, at: cell.address)
    }

    /// Makes every cell free again (their values destroyed).
    mutating func reset() {
        used = 0
    }

    /// Whether no memory has been taken for cells yet.
    var isUnallocated: Bool { chunks.isEmpty }

    /// Frees the memory; called by the owning thread's state when the thread ends.
    func deallocate() {
        for chunk in chunks { chunk.deallocate() }
    }
}

private func erasedValue<T>(of _: T.Type, at address: UnsafeMutableRawPointer) -> Any {
    address.assumingMemoryBound(to: T.self).pointee
}

private func destroyValue<T>(of _: T.Type, at address: UnsafeMutableRawPointer) {
    // Moving out and dropping the value is one value-witness call; `deinitialize(count:)` is a generic loop.
    _ = address.assumingMemoryBound(to: T.self).move()
}
