import WeftAtomics

/// What a registry lookup found, with the registration's configuration as it was at lookup time.
@usableFromInline struct Lookup {
    /// Not retained: registrations outlive every resolve through their container (see ``Container``).
    @usableFromInline let entry: EntryReference
    @usableFromInline let policy: SharingPolicy
    @usableFromInline let hasCallbacks: Bool
    /// Whether the registration was made for exactly the type asked for, with a factory that takes only
    /// the resolver: it can then be called and its instances read back without a dynamic cast.
    @usableFromInline let exact: Bool
    /// `exact` and `policy == .shared`, decided once when the lookup is made: the test for a built singleton's
    /// read is then one byte compared, not two fields decoded.
    @usableFromInline let exactShared: Bool

    init(entry: EntryReference, policy: SharingPolicy, hasCallbacks: Bool, exact: Bool) {
        self.entry = entry
        self.policy = policy
        self.hasCallbacks = hasCallbacks
        self.exact = exact
        self.exactShared = exact && policy == .shared
    }
}

/// A per-thread cache of registry lookups, so that a resolve takes no lock. A name is hashed as the registry
/// hashes it (see ``NameHash``), not with `String`'s own hash: equal names get the same hash either way, and
/// Weft's costs a small fraction of `String`'s for the usual ASCII name.
///
/// Every slot records the registry version it was filled at; a slot from an older version is never used.
/// The version (one process-wide counter, see `WeftAtomics.h`) changes whenever a registration is added,
/// replaced or removed, or changes its scope or callbacks, so a cached lookup is always what the registry
/// would answer. Containers are told apart by serial number, never by address.
@usableFromInline struct LookupCache {
    @usableFromInline struct Slot {
        @usableFromInline var version: UInt64 = 0
        @usableFromInline var container: UInt64 = 0
        @usableFromInline var serviceType = ObjectIdentifier(Slot.self)
        @usableFromInline var argumentsType = ObjectIdentifier(Slot.self)
        @usableFromInline var name: String?
        @usableFromInline var found: Lookup?
    }

    /// A computed constant rather than a stored one: code inlined into other modules does not see a stored
    /// property's value, and would read it through its lazy initialiser.
    @inlinable static var capacity: Int { 256 }
    @usableFromInline let slots: UnsafeMutablePointer<Slot>

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
    @inlinable @inline(__always)
    func find(_ key: ServiceKey, in container: Container) -> Lookup? {
        guard !key.hasOption else { return container.lookUp(key) }
        if container.isScope { return findFromScope(key, in: container) }
        return findHashed(key, in: container)
    }

    /// A lookup from a scope. A scope whose chain of scopes has no registrations of its own is looked through: the
    /// nearest container that is not a scope answers, from this cache (which then stays valid from one scope to
    /// the next, and which the scope's own serial number never fills); a `.scoped` registration found so keeps its
    /// instance in the scope's slot for it (see ``Container/scopeSlot(for:)``).
    @usableFromInline @inline(never)
    func findFromScope(_ key: ServiceKey, in scope: Container) -> Lookup? {
        // One lookup, in the base or (when a scope on the way has registrations) in the scope itself.
        let target = scope.lookedThrough ?? Unmanaged.passUnretained(scope)
        return target._withUnsafeGuaranteedRef { findHashed(key, in: $0) }
    }

    /// A lookup in the cache, keyed by `container`'s serial number; asks the registry on a miss.
    @inlinable @inline(__always)
    func findHashed(_ key: ServiceKey, in container: Container) -> Lookup? {
        var nameHash: UInt = 0
        if let name = key.name { nameHash = UInt(truncatingIfNeeded: NameHash.of(name)) }
        return findHashed(key, in: container, nameHash: nameHash)
    }

    /// ``find(_:in:)`` with the common case alone inlined: an unnamed key without an option, from a container
    /// that is not a scope; any other key calls ``find(_:in:)`` out of line. For a caller whose own code should
    /// stay small (the async engine's nested request, which then inlines the lookup rather than calling it).
    @inlinable @inline(__always)
    func findUnnamed(_ key: ServiceKey, in container: Container) -> Lookup? {
        guard key.name == nil, !key.hasOption, !container.isScope else { return findOutOfLine(key, in: container) }
        return findHashed(key, in: container, nameHash: 0)
    }

    /// ``find(_:in:)``, not inlined (see ``findUnnamed(_:in:)``).
    @usableFromInline @inline(never)
    func findOutOfLine(_ key: ServiceKey, in container: Container) -> Lookup? {
        find(key, in: container)
    }

    /// ``findHashed(_:in:)`` with the hash of the key's name (0 for none).
    @inlinable @inline(__always)
    func findHashed(_ key: ServiceKey, in container: Container, nameHash: UInt) -> Lookup? {
        let version = weft_registry_version()
        // The parts combined, then one multiplication whose top bits pick the slot (Fibonacci hashing): the top
        // bits depend on every bit of the combination.
        var hash = UInt(truncatingIfNeeded: container.serial)
        hash ^= UInt(bitPattern: ObjectIdentifier(key.serviceType)) &>> 3
        hash ^= UInt(bitPattern: ObjectIdentifier(key.argumentsType)) &>> 4
        hash ^= nameHash
        hash = hash &* 0x9E37_79B9_7F4A_7C15
        let first = Int(hash &>> (UInt.bitWidth - Self.capacity.trailingZeroBitCount))
        if let found = match(first, key, container, version) { return found }
        return findInSecond(key, in: container, version: version, first: first)
    }

    /// A lookup the first slot of its two does not hold: the second one, else the registry. Out of line, so that
    /// the lookup inlined into every resolve is the first slot's test alone.
    @usableFromInline @inline(never)
    func findInSecond(_ key: ServiceKey, in container: Container, version: UInt64, first: Int) -> Lookup? {
        let second = first ^ 1
        if let found = match(second, key, container, version) { return found }
        return findMissed(key, in: container, version: version, slots: (first, second))
    }

    /// A lookup the cache does not hold: asks the registry and keeps the answer.
    @usableFromInline @inline(never)
    func findMissed(
        _ key: ServiceKey,
        in container: Container,
        version: UInt64,
        slots candidates: (first: Int, second: Int)
    ) -> Lookup? {
        guard let found = container.lookUp(key) else { return nil }
        let slot = slots[candidates.first].version == version ? candidates.second : candidates.first
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

    @inlinable @inline(__always)
    func match(_ index: Int, _ key: ServiceKey, _ container: Container, _ version: UInt64) -> Lookup? {
        let slot = slots + index
        guard slot.pointee.version == version, slot.pointee.container == container.serial,
            slot.pointee.serviceType == ObjectIdentifier(key.serviceType),
            slot.pointee.argumentsType == ObjectIdentifier(key.argumentsType),
            // An unnamed key (the usual one) is compared without a copy of its name, whose release would cost a
            // call even for nil.
            key.name == nil ? slot.pointee.name == nil : slot.pointee.name == key.name
        else { return nil }
        return slot.pointee.found
    }
}
