/// The registrations of one container, keyed by ``ServiceKey``: an open-addressing hash table with
/// linear probing. Not thread-safe: the container guards it with its lock.
///
/// A container's registrations are written once at start-up, replaced now and then, and removed all together (a single
/// key goes only when a child drops its decorated copy of a registration its parent removed). It exists, rather than a
/// `Dictionary`, for the cost of registering: `Dictionary` hashes every key with SipHash, name included, and hashes
/// every key again each time it grows. This table hashes only the name that way, mixes in the two type identities, and
/// keeps each key's hash, so growing only moves slots. Hash flooding is not a concern: keys come from code.
struct Registry: ~Copyable {
    private struct Slot {
        let key: ServiceKey
        var entry: _ServiceEntryBase
    }

    /// Each slot's key hash (its top bit always set), or 0 for an empty slot; probed before the slots.
    private var hashes: UnsafeMutablePointer<UInt64>?
    /// Initialised exactly where `hashes` is not 0.
    private var slots: UnsafeMutablePointer<Slot>?
    private var capacity = 0
    /// The number of keys.
    private(set) var count = 0

    init() {}

    deinit {
        Self.release(hashes: hashes, slots: slots, capacity: capacity)
    }

    /// The registration under `key`, if any.
    subscript(key: ServiceKey) -> _ServiceEntryBase? {
        guard let hashes, let slots else { return nil }
        let hash = Self.hash(of: key)
        let mask = capacity - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while hashes[index] != 0 {
            if hashes[index] == hash, slots[index].key == key { return slots[index].entry }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Stores `entry` under `key`; returns the registration it replaces, if any.
    mutating func updateValue(_ entry: _ServiceEntryBase, forKey key: consuming ServiceKey) -> _ServiceEntryBase? {
        if (count + 1) * 4 > capacity * 3 { grow() }
        guard let hashes, let slots else { preconditionFailure("Weft: the registry did not grow") }
        let hash = Self.hash(of: key)
        let mask = capacity - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while hashes[index] != 0 {
            if hashes[index] == hash, slots[index].key == key {
                defer { slots[index].entry = entry }
                return slots[index].entry
            }
            index = (index + 1) & mask
        }
        hashes[index] = hash
        (slots + index).initialize(to: Slot(key: key, entry: entry))
        count += 1
        return nil
    }

    /// Removes the registration under `key` and returns it, if any. The slots after it that probed past it move
    /// back (backward-shift deletion), so that no lookup stops at the emptied slot before its key.
    mutating func removeValue(forKey key: ServiceKey) -> _ServiceEntryBase? {
        guard let hashes, let slots else { return nil }
        let hash = Self.hash(of: key)
        let mask = capacity - 1
        var hole = Int(truncatingIfNeeded: hash) & mask
        while hashes[hole] != 0, !(hashes[hole] == hash && slots[hole].key == key) { hole = (hole + 1) & mask }
        guard hashes[hole] != 0 else { return nil }
        let removed = (slots + hole).move().entry
        hashes[hole] = 0
        count -= 1
        var next = (hole + 1) & mask
        while hashes[next] != 0 {
            // A key can fill the hole when the hole lies on its probe path, from its home slot to where it is.
            let home = Int(truncatingIfNeeded: hashes[next]) & mask
            if (next &- home) & mask >= (next &- hole) & mask {
                hashes[hole] = hashes[next]
                (slots + hole).moveInitialize(from: slots + next, count: 1)
                hashes[next] = 0
                hole = next
            }
            next = (next + 1) & mask
        }
        return removed
    }

    /// Removes every registration and returns them.
    mutating func removeAll() -> [_ServiceEntryBase] {
        let removed = values
        destroy()
        return removed
    }

    /// Calls `body` with each key and its registration, in no particular order (a registration stored
    /// under several keys comes once per key).
    func forEach(_ body: (ServiceKey, _ServiceEntryBase) throws -> Void) rethrows {
        guard let hashes, let slots else { return }
        for index in 0..<capacity where hashes[index] != 0 {
            try body(slots[index].key, slots[index].entry)
        }
    }

    /// The registrations, once per key.
    var values: [_ServiceEntryBase] {
        filter { _, _ in true }
    }

    /// Whether some key satisfies `predicate`.
    func containsKey(where predicate: (ServiceKey) -> Bool) -> Bool {
        var found = false
        forEach { key, _ in found = found || predicate(key) }
        return found
    }

    /// Whether `entry` is stored under some key.
    func contains(_ entry: _ServiceEntryBase) -> Bool {
        var found = false
        forEach { found = found || $1 === entry }
        return found
    }

    /// The registrations whose key and registration satisfy `predicate`, once per key.
    func filter(_ predicate: (ServiceKey, _ServiceEntryBase) -> Bool) -> [_ServiceEntryBase] {
        var result: [_ServiceEntryBase] = []
        forEach { key, entry in
            if predicate(key, entry) { result.append(entry) }
        }
        return result
    }

    /// The keys whose key and registration satisfy `predicate`.
    func keys(where predicate: (ServiceKey, _ServiceEntryBase) -> Bool) -> [ServiceKey] {
        var result: [ServiceKey] = []
        forEach { key, entry in
            if predicate(key, entry) { result.append(key) }
        }
        return result
    }

    /// The registrations as a dictionary, for diagnostics.
    var dictionary: [ServiceKey: _ServiceEntryBase] {
        var result: [ServiceKey: _ServiceEntryBase] = [:]
        result.reserveCapacity(count)
        forEach { result[$0] = $1 }
        return result
    }

    /// Doubles the table (from 16 slots), moving each slot by its kept hash.
    private mutating func grow() {
        let newCapacity = max(16, capacity * 2)
        let newHashes = UnsafeMutablePointer<UInt64>.allocate(capacity: newCapacity)
        newHashes.initialize(repeating: 0, count: newCapacity)
        let newSlots = UnsafeMutablePointer<Slot>.allocate(capacity: newCapacity)
        let mask = newCapacity - 1
        if let hashes, let slots {
            for old in 0..<capacity where hashes[old] != 0 {
                var index = Int(truncatingIfNeeded: hashes[old]) & mask
                while newHashes[index] != 0 { index = (index + 1) & mask }
                newHashes[index] = hashes[old]
                (newSlots + index).moveInitialize(from: slots + old, count: 1)
            }
            hashes.deallocate()
            slots.deallocate()
        }
        (hashes, slots, capacity) = (newHashes, newSlots, newCapacity)
    }

    /// Releases every slot and the table, leaving it empty.
    private mutating func destroy() {
        Self.release(hashes: hashes, slots: slots, capacity: capacity)
        (hashes, slots, capacity, count) = (nil, nil, 0, 0)
    }

    /// Releases every slot of a table and the table itself.
    private static func release(
        hashes: UnsafeMutablePointer<UInt64>?, slots: UnsafeMutablePointer<Slot>?, capacity: Int
    ) {
        guard let hashes, let slots else { return }
        for index in 0..<capacity where hashes[index] != 0 {
            (slots + index).deinitialize(count: 1)
        }
        hashes.deallocate()
        slots.deallocate()
    }

    /// Mixes the identities of the key's two types with the hash of its name (see ``NameHash``); an
    /// extension option, which is rare, goes through `Hasher`. The top bit is always set (0 marks an empty
    /// slot).
    private static func hash(of key: ServiceKey) -> UInt64 {
        var hash = UInt64(UInt(bitPattern: ObjectIdentifier(key.serviceType))) &* 0x9E37_79B9_7F4A_7C15
        hash ^= UInt64(UInt(bitPattern: ObjectIdentifier(key.argumentsType))) &* 0xC2B2_AE3D_27D4_EB4F
        if let name = key.name {
            // Equal names may differ in their bytes (canonical equivalence: "e\u{301}" is "é", and the Kelvin
            // sign is "K"); `NameHash` gives them the same hash, and an ASCII name costs a few instructions.
            hash ^= NameHash.of(name) &+ 1
        }
        if key.hasOption, let option = key.option {
            var hasher = Hasher()
            option.hash(into: &hasher)
            hash ^= UInt64(UInt(bitPattern: hasher.finalize()))
        }
        // A final avalanche, so that the low bits the table uses depend on every input bit.
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        return hash | (1 << 63)
    }
}
